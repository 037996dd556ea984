#!/usr/bin/env python3
"""Runs out of CUDA memory the way training scripts do: it keeps growing a list of activations
until the allocator gives up, and dies of the OutOfMemoryError (exit 1), having printed what
torch.cuda says. Under sawtooth-record the trace must hold the OOM event and the post-mortem."""
import torch

device = torch.device("cuda", 0)
free, total = torch.cuda.mem_get_info(device)
print(f"free {free} of {total}", flush=True)
weight = torch.randn(8192, 8192, device=device)
kept = []
chunk = 8 << 30  # 8 GiB a step: about 17 steps on an H200
while True:
    kept.append(torch.empty(chunk // 4, dtype=torch.float32, device=device))
    kept[-1].copy_(weight.flatten()[:1].expand(chunk // 4))
    print(f"holding {len(kept) * 8} GiB, allocated {torch.cuda.memory_allocated(device)}", flush=True)
