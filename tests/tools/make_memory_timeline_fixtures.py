#!/usr/bin/env python3
"""Writes the CPU memory-timeline fixtures with torch.profiler's own export_memory_timeline: the seed's
anatomy net at a small size (3 × Linear(256, 256, no bias) + ReLU, batch 32, Adam, 3 steps) profiled on
the CPU with profile_memory, exported in both of the forms export_memory_timeline writes for a .gz path:
  anatomy_cpu_memory_timeline.raw.json.gz  raw events [timestamp ns, action, bytes, category] (".raw.json.gz")
  anatomy_cpu_memory_timeline.json.gz      plot points [times us, sizes by category]          (".json.gz")
(the GPU fixture anatomy_adam_memory_timeline.raw.json is the plot-points form: a path ending in ".raw.json"
without ".gz" takes that branch of export_memory_timeline).
Run from tests/data with the torch venv's python:  python ../tools/make_memory_timeline_fixtures.py"""
import gzip
import os
import shutil
import tempfile

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile


def main():
    torch.manual_seed(0)
    net = nn.Sequential(*[m for _ in range(3) for m in (nn.Linear(256, 256, bias=False), nn.ReLU())])
    X = torch.randn(32, 256)
    opt = torch.optim.Adam(net.parameters())
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True, with_stack=True) as prof:
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            net(X).sum().backward()
            opt.step()
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("anatomy_cpu_memory_timeline.raw.json.gz", "anatomy_cpu_memory_timeline.json.gz"):
            path = os.path.join(tmp, name)
            prof.export_memory_timeline(path, device="cpu")
            # Recompressed without a timestamp, so that regenerating gives the same bytes.
            with gzip.open(path, "rb") as f:
                data = f.read()
            with open(name, "wb") as f:
                f.write(gzip.compress(data, mtime=0))
            print(name, len(data), "bytes of JSON")


if __name__ == "__main__":
    main()
