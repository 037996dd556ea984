#!/usr/bin/env python3
"""A training script for the ladder's foreign-program check (bench/gpu/stages/ladder.sh): it knows
nothing of Sawtooth; `sawtooth-record --rung ...` applies a rung to it unmodified.

--model gpt2   GPT-2 small from transformers' GPT2Config (no download): transformer.h is the ModuleList
--model llama  a Llama-style model from LlamaConfig (hidden 1024, 12 layers, 16 heads, MLP 2816,
               vocab 32000; no download): model.layers is the ModuleList
--model tiny   a GPT-like model in plain torch (blocks in a ModuleList), for dry runs without
               transformers
Full precision (fp32, TF32 off: PyTorch's default) unless --autocast bf16. AdamW, zero_grad(set_to_none).
Prints one line `RESULT {json}`: step times (wall, synchronized), max_memory_allocated,
max_requested_bytes and max_memory_reserved (CUDA), so the recording can be checked against the
program's own numbers.
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--model", choices=["gpt2", "llama", "tiny"], default="gpt2")
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--warmup", type=int, default=5)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--seq", type=int, default=512)
parser.add_argument("--layers", type=int, default=12)
parser.add_argument("--autocast", choices=["off", "bf16"], default="off")
parser.add_argument("--device", default="cuda")
parser.add_argument("--json", help="also write the result here")
args = parser.parse_args()


class TinyBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class Tiny(nn.Module):
    def __init__(self, vocab=1000, d=128, layers=4, heads=4):
        super().__init__()
        self.vocab = vocab
        self.emb = nn.Embedding(vocab, d)
        self.h = nn.ModuleList([TinyBlock(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens, labels):
        x = self.emb(tokens)
        for block in self.h:
            x = block(x)
        logits = self.head(self.ln(x))
        return nn.functional.cross_entropy(logits.view(-1, self.vocab), labels.view(-1))


def build():
    if args.model == "tiny":
        return Tiny(layers=args.layers), 1000
    if args.model == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(n_layer=args.layers)
        return GPT2LMHeadModel(cfg), cfg.vocab_size
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=args.layers, num_attention_heads=16,
                      num_key_value_heads=16, vocab_size=32000, max_position_embeddings=max(2048, args.seq))
    return LlamaForCausalLM(cfg), cfg.vocab_size


torch.manual_seed(0)
device = torch.device(args.device)
cuda = device.type == "cuda"
model, vocab = build()
model = model.to(device)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
tokens = torch.randint(0, vocab, (args.batch, args.seq), device=device)


def loss_of():
    out = model(tokens, labels=tokens)
    return out if isinstance(out, torch.Tensor) else out.loss


times = []
for step in range(args.steps):
    if cuda:
        torch.cuda.synchronize()
    t = time.perf_counter()
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.autocast == "bf16"):
        loss = loss_of()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if cuda:
        torch.cuda.synchronize()
    times.append((time.perf_counter() - t) * 1e3)

stats = torch.cuda.memory_stats(device) if cuda else {}
timed = times[args.warmup:] or times
result = {
    "script": "ladder_train.py",
    "model": args.model,
    "autocast": args.autocast,
    "batch": args.batch,
    "seq": args.seq,
    "layers": args.layers,
    "parameters": sum(p.numel() for p in model.parameters()),
    "step_ms_median": statistics.median(timed),
    "step_ms_min": min(timed),
    "step_ms_max": max(timed),
    "max_memory_allocated": torch.cuda.max_memory_allocated(device) if cuda else None,
    "max_requested_bytes": stats.get("requested_bytes.all.peak"),
    "max_memory_reserved": torch.cuda.max_memory_reserved(device) if cuda else None,
    "torch": torch.__version__,
    "loss": loss.item(),
}
print("RESULT " + json.dumps(result), flush=True)
if args.json:
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
