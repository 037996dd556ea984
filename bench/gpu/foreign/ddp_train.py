#!/usr/bin/env python3
"""torchrun --nproc-per-node N ddp_train.py: a small GPT-2 trained data-parallel, one process per
rank (RANK/LOCAL_RANK from torchrun). NCCL with one GPU per rank when there are enough GPUs,
else Gloo with every rank on GPU 0 (a one-GPU machine still exercises the multi-process path)."""
import json
import os

import torch
import torch.distributed as dist
from transformers import GPT2Config, GPT2LMHeadModel

local = int(os.environ["LOCAL_RANK"])
world = int(os.environ["WORLD_SIZE"])
nccl = torch.cuda.device_count() >= world
device = torch.device("cuda", local if nccl else 0)
torch.cuda.set_device(device)
dist.init_process_group("nccl" if nccl else "gloo")
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(GPT2LMHeadModel(GPT2Config(n_layer=4)).to(device),
                                                  device_ids=[device.index])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
tokens = torch.randint(0, 50257, (4, 256), device=device)
for step in range(5):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(tokens, labels=tokens).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
stats = torch.cuda.memory_stats(device)
print("RESULT " + json.dumps({"rank": dist.get_rank(), "backend": "nccl" if nccl else "gloo", "device": str(device),
                              "max_memory_allocated": torch.cuda.max_memory_allocated(device),
                              "max_requested_bytes": stats.get("requested_bytes.all.peak")}), flush=True)
dist.destroy_process_group()
