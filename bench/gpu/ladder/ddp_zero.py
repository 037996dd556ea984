#!/usr/bin/env python3
"""torchrun --nproc-per-node N ddp_zero.py [--zero1]: a GPT-like model trained data-parallel with
DDP, one process per rank, each on its own GPU (NCCL), or on the CPU with Gloo (--device cpu, a dry
run). --zero1 shards Adam's state over the ranks with torch's ZeroRedundancyOptimizer (ZeRO-1).
Knows nothing of Sawtooth; prints `RESULT {json}` per rank with its own max_memory_allocated, which
the ladder's per-rank prediction is put beside.
"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--zero1", action="store_true")
parser.add_argument("--steps", type=int, default=12)
parser.add_argument("--warmup", type=int, default=3)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--seq", type=int, default=512)
parser.add_argument("--width", type=int, default=1024)
parser.add_argument("--layers", type=int, default=8)
parser.add_argument("--device", default="cuda")
args = parser.parse_args()

local = int(os.environ["LOCAL_RANK"])
cuda = args.device == "cuda"
device = torch.device("cuda", local) if cuda else torch.device("cpu")
if cuda:
    torch.cuda.set_device(device)
dist.init_process_group("nccl" if cuda else "gloo")


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln(x))))


class Net(nn.Module):
    def __init__(self, d, layers, vocab=8192):
        super().__init__()
        self.vocab = vocab
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(layers)])
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, tokens):
        x = self.emb(tokens)
        for b in self.blocks:
            x = b(x)
        return nn.functional.cross_entropy(self.head(x).view(-1, self.vocab), tokens.view(-1))


torch.manual_seed(0)
model = nn.parallel.DistributedDataParallel(Net(args.width, args.layers).to(device),
                                            device_ids=[device.index] if cuda else None)
if args.zero1:
    from torch.distributed.optim import ZeroRedundancyOptimizer
    opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
else:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
torch.manual_seed(1000 + dist.get_rank())
tokens = torch.randint(0, 8192, (args.batch, args.seq), device=device)
times = []
for step in range(args.steps):
    if cuda:
        torch.cuda.synchronize()
    t = time.perf_counter()
    loss = model(tokens)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if cuda:
        torch.cuda.synchronize()
    times.append((time.perf_counter() - t) * 1e3)
stats = torch.cuda.memory_stats(device) if cuda else {}
print("RESULT " + json.dumps({
    "script": "ddp_zero.py", "zero1": args.zero1, "rank": dist.get_rank(), "world_size": dist.get_world_size(),
    "device": str(device), "step_ms_median": statistics.median(times[args.warmup:] or times),
    "max_memory_allocated": torch.cuda.max_memory_allocated(device) if cuda else None,
    "max_requested_bytes": stats.get("requested_bytes.all.peak")}), flush=True)
dist.destroy_process_group()
