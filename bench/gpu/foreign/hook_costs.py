#!/usr/bin/env python3
"""What each part of sawtooth-record's recording costs per operation, on the GPU, inside one
process: blocks of N operations with the part running alternate with blocks where it is paused
(sawtooth_shim.pause_recording(parts)), and each pair's difference is one sample.

Operations:
  launch  x.add_(1) on a one-element CUDA tensor: a kernel launch, no allocation
  alloc   torch.empty(256, device="cuda"), dropped at once: three allocator events (alloc,
          free_requested, free_completed) through PyTorch's caching allocator
Parts: allocator (our tracker's callback), cupti (CUPTI's activities), sampler (a cudaMemGetInfo
every 50 ms on the injection library's thread), and all of them.

A pause cannot take out what attaching costs for good (PyTorch builds a trace entry for an attached
tracker even while it is paused): unrecorded, the script measures the plain operations and, as
the nearest in-process stand-in for that part, PyTorch's own history with a ring of one entry
and no stacks, against nothing.

With --gpt2-kernels it also counts the kernels of one GPT-2-small training step (as
gpt2_train.py runs it) with torch.profiler, unrecorded only: the factor for `launch`.

Usage: [sawtooth-record --stacks none --out F --] python3 hook_costs.py [--reps 30] [--n 20000] [--json F]
"""
import argparse
import json
import os
import platform
import random
import statistics
import sys
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--reps", type=int, default=30)
parser.add_argument("--n", type=int, default=20000, help="operations per block")
parser.add_argument("--json")
parser.add_argument("--gpt2-kernels", action="store_true")
args = parser.parse_args()

shim = sys.modules.get("sawtooth_shim")
recorded = shim is not None and getattr(shim, "_active", None) is not None
device = torch.device("cuda", 0)
x = torch.zeros(1, device=device)


def launch(n):
    for _ in range(n):
        x.add_(1)


def alloc(n):
    for _ in range(n):
        torch.empty(256, device=device)


OPS = {"launch": launch, "alloc": alloc}


def block_ns(op):
    torch.cuda.synchronize()
    t = time.perf_counter_ns()
    OPS[op](args.n)
    torch.cuda.synchronize()
    return (time.perf_counter_ns() - t) / args.n


def interval(diffs, rng):
    medians = sorted(statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(2000))
    return medians[int(0.025 * len(medians))], medians[int(0.975 * len(medians)) - 1]


def compare(name, op, on, off):
    """on() / off() switch the configuration; each rep measures both, in alternating order."""
    rng = random.Random(0)
    ons, offs = [], []
    for rep in range(args.reps):
        for first in ((on, off) if rep % 2 == 0 else (off, on)):
            first()
            (ons if first is on else offs).append(block_ns(op))
    on()
    diffs = [a - b for a, b in zip(ons, offs)]
    lo, hi = interval(diffs, rng)
    row = {"name": name, "op": op, "on_ns": statistics.median(ons), "off_ns": statistics.median(offs),
           "diff_ns": statistics.median(diffs), "diff_low_ns": lo, "diff_high_ns": hi, "reps": args.reps}
    print(f"{name:34s} {op:6s}  on {row['on_ns']:8.1f} ns  off {row['off_ns']:8.1f} ns  "
          f"cost {row['diff_ns']:+7.1f} ns ({lo:+.1f} … {hi:+.1f})", flush=True)
    return row


def paused(parts):
    return lambda: shim.pause_recording(parts.split(","))


def history(on):
    def switch():
        if on:
            torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python", max_entries=1)
        else:
            torch.cuda.memory._record_memory_history(enabled=None)
    return switch


def gpt2_kernels_per_step():
    from torch.profiler import ProfilerActivity, profile
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config()).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, model.config.vocab_size, (8, 512), device=device)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(tokens, labels=tokens).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    del model, opt
    torch.cuda.empty_cache()
    return kernels


def clocksource():
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            return f.read().strip()
    except OSError:
        return "?"


for op in OPS:  # warm up: the allocator's first segment, the kernel's first launch
    block_ns(op)
rows = []
print(f"{'recorded' if recorded else 'unrecorded'}; clocksource {clocksource()}; {platform.processor() or platform.machine()}; "
      f"{args.reps} reps of {args.n} operations", flush=True)
if recorded:
    resume = shim.resume_recording
    rows.append(compare("our allocator tracker", "alloc", resume, paused("allocator")))
    rows.append(compare("CUPTI's activities", "launch", resume, paused("cupti")))
    rows.append(compare("CUPTI's activities", "alloc", resume, paused("cupti")))
    rows.append(compare("the device sampler", "launch", resume, paused("sampler")))
    rows.append(compare("everything but phases", "launch", resume, paused("allocator,cupti,sampler")))
    rows.append(compare("everything but phases", "alloc", resume, paused("allocator,cupti,sampler")))
    shim.pause_recording()  # the operations as the paused recording leaves them, for the comparison across processes
    for op in OPS:
        rows.append({"name": "recorded, all paused", "op": op,
                     "off_ns": statistics.median(block_ns(op) for _ in range(args.reps))})
        print(f"{'recorded, all paused':34s} {op:6s}  {rows[-1]['off_ns']:8.1f} ns", flush=True)
    shim.resume_recording()
else:
    rows.append(compare("PyTorch's history, ring of 1", "alloc", history(True), history(False)))
    for op in OPS:
        rows.append({"name": "unrecorded", "op": op, "off_ns": statistics.median(block_ns(op) for _ in range(args.reps))})
        print(f"{'unrecorded':34s} {op:6s}  {rows[-1]['off_ns']:8.1f} ns", flush=True)
result = {"recorded": recorded, "clocksource": clocksource(), "n": args.n, "rows": rows,
          "torch": torch.__version__, "pid": os.getpid()}
if args.gpt2_kernels and not recorded:
    result["gpt2_kernels_per_step"] = gpt2_kernels_per_step()
    print(f"GPT-2 small, one training step: {result['gpt2_kernels_per_step']} kernels", flush=True)
if args.json:
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
