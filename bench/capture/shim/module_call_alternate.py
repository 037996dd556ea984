#!/usr/bin/env python3
"""Module tracking's cost where the host is the whole step: GPT-2's module structure (transformers'
GPT2LMHeadModel, 12 layers) at toy size on the CPU, one thread, recorded by sawtooth-record with the
native tracker (Python stacks, modules on). Blocks of 10 steps alternate in one process:

  --compare modules   module tracking on / paused (Modules.set_paused: Module.__call__ as it was)
  --compare wrappers  Module.__call__ in C (module_builtins.h) / the shim's Python wrapper

and the median of neighbouring blocks' ratios is printed as JSON, with each side's median step.

  PYTHONPATH=<a folder with transformers> build/ci/bin/sawtooth-record --quiet --out /tmp/t.sawtooth --force -- \\
      "$(scripts/torch-venv-path.sh)/bin/python" bench/capture/shim/module_call_alternate.py --compare wrappers
"""
import argparse
import json
import statistics
import sys
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

parser = argparse.ArgumentParser()
parser.add_argument("--compare", choices=["modules", "wrappers"], default="modules")
parser.add_argument("--blocks", type=int, default=60)
args = parser.parse_args()
shim = sys.modules.get("sawtooth_shim")
modules = getattr(getattr(shim, "_active", None), "modules", None)
if modules is None:
    sys.exit("run this under sawtooth-record (module tracking on)")
torch.manual_seed(0)
torch.set_num_threads(1)
model = GPT2LMHeadModel(GPT2Config(vocab_size=512, n_positions=64, n_embd=32, n_layer=12, n_head=2))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randint(0, 512, (2, 32))


def step():
    model(input_ids=x, labels=x).loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


for _ in range(5):
    step()
if args.compare == "wrappers" and modules.native_call is None:
    sys.exit("Module.__call__ in C is not installed (no tracker library?)")
per = {"A": [], "B": []}
for b in range(args.blocks):
    side = "A" if b % 2 == 0 else "B"
    if args.compare == "modules":
        modules.set_paused(side == "B")
    else:
        torch.nn.Module.__call__ = modules.native_call if side == "A" else modules.python_call[1]
    t0 = time.perf_counter()
    for _ in range(10):
        step()
    per[side].append((time.perf_counter() - t0) / 10 * 1e3)
if args.compare == "modules":
    modules.set_paused(False)
else:
    torch.nn.Module.__call__ = modules.native_call
a_name, b_name = ("on", "paused") if args.compare == "modules" else ("C", "Python")
ratios = [a / b - 1 for a, b in zip(per["A"], per["B"])]
print(json.dumps({"compare": args.compare, f"{a_name}_ms": round(statistics.median(per["A"]), 3),
                  f"{b_name}_ms": round(statistics.median(per["B"]), 3),
                  f"{a_name}_over_{b_name}_pct": round(100 * statistics.median(ratios), 2)}))
