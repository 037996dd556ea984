#!/usr/bin/env python3
"""GPT-2 small (transformers' GPT2Config, random weights: no downloads) trained for a few steps on
the GPU with PyTorch's allocator history recorded from the first allocation. Prints PyTorch's own
torch.cuda.max_memory_allocated() and memory_allocated(), and writes the snapshot and those numbers
(as check_allocator_state.py's --expected truth) for `sawtooth-trace info` to be compared with.

Usage: gpt2_max_allocated.py OUT_DIR [--steps N] [--batch B] [--seq L]
"""
import argparse
import json
import os
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--steps", type=int, default=4)
p.add_argument("--batch", type=int, default=8)
p.add_argument("--seq", type=int, default=1024)
a = p.parse_args()
os.makedirs(a.out, exist_ok=True)
t0 = time.time()
torch.manual_seed(0)
torch.cuda.init()
# Record from the very first allocation, so the trace holds everything max_memory_allocated counts.
torch.cuda.memory._record_memory_history(max_entries=5_000_000, stacks="python")
torch.cuda.reset_peak_memory_stats()
model = GPT2LMHeadModel(GPT2Config()).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(a.steps):
    ids = torch.randint(0, 50257, (a.batch, a.seq), device="cuda")
    loss = model(ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
truth = {"device": 0, "peak_allocated_block_bytes": torch.cuda.max_memory_allocated(),
         "final_allocated_block_bytes": torch.cuda.memory_allocated(),
         "reserved_bytes": torch.cuda.memory_reserved()}
snapshot = os.path.join(a.out, "gpt2.pickle")
torch.cuda.memory._dump_snapshot(snapshot)
torch.cuda.memory._record_memory_history(enabled=None)
with open(os.path.join(a.out, "gpt2.truth.json"), "w") as f:
    json.dump({"gpt2.pickle": {"devices": [truth]}}, f, indent=1)
print(f"gpt2 small, batch {a.batch} x {a.seq}, {a.steps} steps, torch {torch.__version__}: "
      f"max_memory_allocated {truth['peak_allocated_block_bytes']}, memory_allocated {truth['final_allocated_block_bytes']}, "
      f"snapshot {os.path.getsize(snapshot)} bytes, {time.time() - t0:.1f} s")
