#!/usr/bin/env python3
"""Small real snapshots for the allocator replay, one scenario per process (the allocator's
settings come from PYTORCH_CUDA_ALLOC_CONF, read once): each writes OUT_DIR/NAME.pickle and
OUT_DIR/NAME.truth.json with PyTorch's own counters (check_allocator_state.py --expected).

  window        default settings; recording starts mid-run (blocks alive and split before it),
                two streams, frees held back by record_stream
  expandable    expandable_segments:True, two streams, empty_cache in the middle (unmaps), regrowth
  roundup       roundup_power2_divisions and max_split_size_mb (oversize blocks)
  oom           a memory fraction, a fragmented cache, and an allocation that fails: the state at
                the OOM is compared with memory_reserved() / memory_allocated() taken right after it

Usage: allocator_scenarios.py NAME OUT_DIR   (set PYTORCH_CUDA_ALLOC_CONF before, see allocator.sh)
"""
import json
import os
import random
import sys

import torch

name, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = random.Random(5)
MB = 1 << 20
torch.cuda.init()
side = torch.cuda.Stream()
truth = {"device": 0}


def tensor(nbytes, stream=None):
    with torch.cuda.stream(stream or torch.cuda.current_stream()):
        return torch.empty(max(1, nbytes // 4), dtype=torch.float32, device="cuda")


def step(keep, scale=1.0):
    """A training step's pattern: activations born in order and freed in reverse, temporaries."""
    acts = []
    for layer in range(10):
        use_side = layer % 3 == 1
        t = tensor(int(rng.choice([1.5 * MB, 6 * MB, 17 * MB, 300 * 1024, 12 * 1024, 48 * MB]) * scale) + rng.randrange(4096),
                   side if use_side else None)
        acts.append((t, use_side))
        tmp = tensor(rng.randrange(4, 900 * 1024))
        del tmp
    for t, use_side in reversed(acts):
        if use_side and rng.random() < 0.5:
            t.record_stream(torch.cuda.current_stream())  # its free waits for the main stream's work
        if len(keep) < 6:
            keep.append(tensor(int(2.5 * MB * scale) + 512))
    acts.clear()
    for _ in range(3):
        tensor(rng.randrange(MB, 30 * MB))
    torch.cuda.synchronize()


def record():
    torch.cuda.memory._record_memory_history(max_entries=1_000_000, stacks="python")
    torch.cuda.reset_peak_memory_stats()


keep = []
if name == "window":
    for i in range(3):  # before recording: what the trace will find alive and split
        step(keep, 1.0 + 0.1 * i)
    big = [tensor(rng.randrange(2 * MB, 40 * MB)) for _ in range(8)]
    record()
    del big[::2]
    for i in range(4):
        step(keep, 1.1 - 0.05 * i)
elif name == "expandable":
    record()
    for i in range(3):
        step(keep, 1.0 + 0.1 * i)
    torch.cuda.empty_cache()
    for i in range(3):
        step(keep, 1.2 - 0.1 * i)
elif name == "roundup":
    record()
    held = [tensor(s) for s in (70 * MB, 130 * MB, 66 * MB + 12345, 3 * MB + 7, 9 * MB + 1)]
    for i in range(4):
        step(keep, 1.0 + 0.07 * i)
        held[i % len(held)] = tensor(rng.randrange(60 * MB, 140 * MB))
elif name == "oom":
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(2 * (1 << 30) / total)
    record()
    blocks = [tensor(96 * MB) for _ in range(16)]
    del blocks[::2]  # freed, but each 96 MiB segment still holds its neighbours: fragmented
    chunks = [tensor(30 * MB) for _ in range(10)]  # split those free segments
    del chunks[1::2]
    try:
        tensor(1200 * MB)  # 8 x 96 MiB held + split segments + this > the 2 GiB allowed
    except torch.OutOfMemoryError as e:
        truth["oom"] = {"reserved_bytes": torch.cuda.memory_reserved(), "allocated_bytes": torch.cuda.memory_allocated(),
                        "message": str(e).splitlines()[0]}
else:
    sys.exit(f"unknown scenario {name}")
torch.cuda.synchronize()
truth["peak_allocated_block_bytes"] = torch.cuda.max_memory_allocated()
truth["final_allocated_block_bytes"] = torch.cuda.memory_allocated()
snapshot = os.path.join(out, f"real_{name}.pickle")
torch.cuda.memory._dump_snapshot(snapshot)
with open(os.path.join(out, f"real_{name}.truth.json"), "w") as f:
    json.dump({f"real_{name}.pickle": {"devices": [truth]}}, f, indent=1)
print(f"{name}: max_memory_allocated {truth['peak_allocated_block_bytes']}, memory_allocated "
      f"{truth['final_allocated_block_bytes']}, {os.path.getsize(snapshot)} bytes"
      + (f", OOM: {truth['oom']['message'][:100]}" if "oom" in truth else ""))
