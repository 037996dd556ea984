#!/usr/bin/env python3
"""The programs of the per-module comparison (issue 23, item 7): GPT-2 small as the foreign
overhead runs train it (transformers' GPT2Config, no download; bf16 autocast, batch 8 x 512,
AdamW) and the built-in workloads' nets in Python at their seed sizes (anatomy, precision fp32,
checkpointing every 2nd block, accumulation k = 4). They know nothing of Sawtooth.

--mode plain       trains --steps steps and writes, per module, what it holds at the end (the
                   parameters, gradients and optimizer state of the module and its submodules, each
                   storage once: exact bytes, and rounded to 512 B as MemTracker counts them), both
                   as Sawtooth owns a tied weight (the first module that holds it) and as MemTracker
                   counts it (every module that holds it). Record it with sawtooth-record.
--mode memtracker  the same, with the last step inside torch.distributed._tools.mem_tracker.MemTracker:
                   per module its parameter, input and output memory and, per call, the activations
                   (MemTracker's ACT) and the total when its forward began and ended, at its forward's
                   and backward's peaks; MemTracker's peak by kind.
Names are MemTracker's (root class first: GPT2LMHeadModel.transformer.h.0), as sawtooth-trace
modules names them.

usage: module_programs.py --model gpt2|anatomy|precision|checkpointing|accumulation --mode plain|memtracker
                          --json OUT [--device cuda|cpu] [--steps N] [--tiny]
--tiny (with --device cpu) shrinks every net so that the logic runs on a machine without a GPU.
"""
import argparse
import json
import math
import sys

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--model", required=True, choices=["gpt2", "anatomy", "precision", "checkpointing", "accumulation"])
parser.add_argument("--mode", required=True, choices=["plain", "memtracker"])
parser.add_argument("--json", required=True)
parser.add_argument("--device", default="cuda")
parser.add_argument("--steps", type=int, default=3)
parser.add_argument("--tiny", action="store_true")
args = parser.parse_args()
device = torch.device(args.device)
cuda = device.type == "cuda"
tiny = args.tiny


class Block(nn.Module):  # the checkpointing workload's residual block
    def __init__(self, d):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))

    def forward(self, x):
        return x + self.net(x)


class Blocks(nn.Module):
    def __init__(self, n, d, every):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.every = every

    def forward(self, x):
        for i, b in enumerate(self.blocks):
            x = torch.utils.checkpoint.checkpoint(b, x, use_reentrant=False) if self.every and i % self.every == 0 else b(x)
        return x


def build():
    """(model, optimizer, step function): a step is zero_grad, forward, backward, optimizer."""
    torch.manual_seed(0)
    if args.model == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=1000, n_positions=64) if tiny else GPT2Config()
        model = GPT2LMHeadModel(config).to(device)
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=cuda)
        batch, seq = (2, 32) if tiny else (8, 512)
        tokens = torch.randint(0, config.vocab_size, (batch, seq), device=device)

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=cuda):
                loss = model(tokens, labels=tokens).loss
            loss.backward()
            opt.step()
        return model, opt, step
    if args.model == "anatomy":
        width, batch = (64, 16) if tiny else (2048, 256)
        model = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(width, width, bias=False), nn.ReLU())]).to(device)
        x = torch.randn(batch, width, device=device)
        opt = torch.optim.Adam(model.parameters())

        def step():
            opt.zero_grad(set_to_none=True)
            model(x).sum().backward()
            opt.step()
        return model, opt, step
    if args.model == "precision":
        side, hidden, batch = (8, 64, 16) if tiny else (64, 8192, 2048)
        model = nn.Sequential(nn.Flatten(), nn.Linear(side * side, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                              nn.Linear(hidden, 10)).to(device)
        x = torch.randn(batch, 1, side, side, device=device)
        y = torch.randint(0, 10, (batch,), device=device)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        ce = nn.CrossEntropyLoss()

        def step():
            opt.zero_grad(set_to_none=True)
            ce(model(x), y).backward()
            opt.step()
        return model, opt, step
    if args.model == "checkpointing":
        n, d, rows = (4, 32, 64) if tiny else (16, 1024, 16384)
        model = Blocks(n, d, every=2).to(device)
        x = torch.randn(rows, d, device=device, requires_grad=True)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad(set_to_none=True)
            model(x).sum().backward()
            opt.step()
        return model, opt, step
    # accumulation: the scaling MLP, k = 4 micro-batches
    d_in, hidden, rows, k = (32, 64, 64, 4) if tiny else (1024, 4096, 16384, 4)
    model = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10)).to(device)
    x = torch.randn(rows, d_in, device=device)
    y = torch.randint(0, 10, (rows,), device=device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    ce = nn.CrossEntropyLoss()
    micro = rows // k

    def step():
        opt.zero_grad(set_to_none=True)
        for i in range(k):
            (ce(model(x[i * micro:(i + 1) * micro]), y[i * micro:(i + 1) * micro]) / k).backward()
        opt.step()
    return model, opt, step


def rounded(nbytes):
    return math.ceil(nbytes / 512) * 512 if cuda else nbytes  # MemTracker's _PYTORCH_MIN_ALLOCATE (CUDA only)


def storage_bytes(t):
    return t.untyped_storage().nbytes()


def modules_by_name(model):
    """MemTracker's names (ModTracker._get_mod_name): the root's class, then named_children down."""
    out = []

    def walk(m, name):
        out.append((name, m))
        for child_name, child in m.named_children():
            walk(child, f"{name}.{child_name}")
    walk(model, type(model).__name__)
    return out


def holdings(model, opt):
    """Per module, the bytes it holds now: parameters, gradients and optimizer state of it and its
    submodules, each storage once; `owned` gives a tied weight to the first module (in
    named_modules() order) that holds it, as Sawtooth does, `every` to each module holding it, as
    MemTracker does."""
    owner = {}
    for _, m in model.named_modules():
        for p in m.parameters(recurse=False):
            owner.setdefault(id(p), m)
    out = {}
    for name, m in modules_by_name(model):
        subtree = {id(s) for s in m.modules()}
        for rule in ("owned", "every"):
            params = [p for p in m.parameters()] if rule == "every" else \
                [p for s in m.modules() for p in s.parameters(recurse=False) if owner[id(p)] is s]
            seen, entry = set(), {k: 0 for k in ("parameter", "gradient", "optimizer_state", "parameter_512",
                                                 "gradient_512", "optimizer_state_512")}
            for p in params:
                if id(p) in seen:
                    continue
                seen.add(id(p))
                tensors = [("parameter", p)]
                if p.grad is not None:
                    tensors.append(("gradient", p.grad))
                for v in opt.state.get(p, {}).values():
                    if isinstance(v, torch.Tensor) and v.device == p.device:  # a fused step count too
                        tensors.append(("optimizer_state", v))
                for kind, t in tensors:
                    entry[kind] += storage_bytes(t)
                    entry[kind + "_512"] += rounded(storage_bytes(t))
            out.setdefault(name, {})[rule] = entry
        out[name]["class"] = type(m).__name__
        del subtree
    return out


model, opt, step = build()
result = {"model": args.model, "device": str(device), "steps": args.steps, "tiny": tiny, "torch": torch.__version__}
for _ in range(args.steps - (1 if args.mode == "memtracker" else 0)):
    step()
if args.mode == "memtracker":
    from torch.distributed._tools.mem_tracker import MemTracker, _ModState
    mt = MemTracker()
    mt.track_external(model, opt)
    if cuda:
        torch.cuda.synchronize()
    try:
        with mt:
            step()
    except NotImplementedError as e:  # a module called several times a step (accumulation's micro-batches)
        result["memtracker_error"] = str(e)
        step()
    per_module = {}
    for module, stats in mt.memory_tracking.items():
        entry = {"parameter_mem": getattr(stats, "parameter_mem", None), "buffer_mem": getattr(stats, "buffer_mem", None),
                 "input_mem": getattr(stats, "input_mem", None), "output_mem": getattr(stats, "output_mem", None),
                 "calls": {}}
        for state, snaps in stats.snapshots.items():
            name = state.value if hasattr(state, "value") else str(state)
            entry["calls"][name] = [{str(dev): {str(k): v for k, v in d.items()} for dev, d in snap.items()}
                                    for snap in snaps]
        per_module[stats.mod_fqn] = entry
    result["memtracker"] = per_module
    result["memtracker_peak"] = {str(dev): {str(k): v for k, v in d.items()}
                                 for dev, d in mt.get_tracker_snapshot("peak").items()}
if cuda:
    torch.cuda.synchronize()
    result["max_memory_allocated"] = torch.cuda.max_memory_allocated(device)
    result["max_requested_bytes"] = torch.cuda.memory_stats(device).get("requested_bytes.all.peak")
result["holdings"] = holdings(model, opt)
with open(args.json, "w") as f:
    json.dump(result, f, indent=1)
print(f"RESULT {args.model} {args.mode}: {len(result['holdings'])} modules", file=sys.stderr)
