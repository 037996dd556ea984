#!/usr/bin/env python3
"""A minimal CUDA training script for the CUPTI checks: torch.cuda.is_available() first (the driver,
and so our CUPTI injection, starts there, before PyTorch's lazy CUDA init), then a small MLP with
Adam for 30 steps. Prints one RESULT line."""
import torch

assert torch.cuda.is_available()
model = torch.nn.Sequential(torch.nn.Linear(2048, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 2048)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(30):
    opt.zero_grad()
    model(torch.randn(256, 2048, device="cuda")).pow(2).mean().backward()
    opt.step()
torch.cuda.synchronize()
print(f"RESULT max_memory_allocated={torch.cuda.max_memory_allocated()}", flush=True)
