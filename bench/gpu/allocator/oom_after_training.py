"""A long run that ends in an out-of-memory, as one that grows its batch does: an MLP trains for
STEPS steps at a fixed batch, then the batch doubles each step until the allocator fails. A memory
fraction makes it fail at about 7 GB on an H200, in seconds. torch's own account of the failure
(its message, its counters) is written as JSON to OUT before the error ends the program.

Usage: python3 oom_after_training.py STEPS OUT.json
"""
import json
import sys

import torch
from torch import nn

steps, out = int(sys.argv[1]), sys.argv[2]
torch.cuda.set_per_process_memory_fraction(0.05)
model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)


def step(batch):
    x = torch.randn(batch, 1024, device="cuda")
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


batch = 256
for _ in range(steps):
    step(batch)
torch.cuda.synchronize()
try:
    while True:
        batch *= 2
        step(batch)
except torch.OutOfMemoryError as e:
    with open(out, "w") as f:
        json.dump({"message": str(e), "batch": batch, "steps": steps,
                   "memory_allocated": torch.cuda.memory_allocated(),
                   "max_memory_allocated": torch.cuda.max_memory_allocated(),
                   "memory_reserved": torch.cuda.memory_reserved()}, f)
    raise
