#!/usr/bin/env python3
"""A real training script for sawtooth-record -- COMMAND on the H200: GPT-2 small built from
transformers' GPT2Config (no download), bf16 autocast, batch 8 x 512 tokens, AdamW.

It knows nothing of Sawtooth. It prints its own step times (wall, and the process's CPU time up to
the step's final synchronize: host work, which a host's steal time does not inflate) and what
torch.cuda says about memory,
as one JSON line, so that the recording can be checked against the program's own numbers:
  max_memory_allocated  the allocator's block sizes (what users read)
  max_requested_bytes   the requested sizes (what a snapshot's trace carries)
--history python|none-stacks turns on PyTorch's own history recording instead, for the overhead
comparison. --profile N runs torch.profiler with CUDA activity for N steps in the middle.
--alternate A,B (of plain, history, ours) measures inside one process instead: after the warm-up,
blocks of --block steps alternate between the two (ours: everything sawtooth-record's recording
does per step — the CUDA allocator, CUPTI's activities, the device sampler, phases and categories — paused in the
other blocks), so that a drifting machine hits both alike; step_config
says which each step ran (alternate_report.py compares neighbouring blocks).
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--warmup", type=int, default=5)
parser.add_argument("--batch", type=int, default=8)
parser.add_argument("--seq", type=int, default=512)
parser.add_argument("--layers", type=int, default=12)
parser.add_argument("--history", choices=["off", "python", "python-all", "none-stacks"], default="off")
parser.add_argument("--profile", type=int, default=0, help="steps run under torch.profiler with CUDA activity")
parser.add_argument("--json", help="also write the result here")
parser.add_argument("--memory-timeline", help="with --profile: profile memory too and export torch.profiler's "
                    "memory timeline (its own categories) here, a .raw.json.gz")
parser.add_argument("--max-entries", type=int, default=1_000_000,
                    help="PyTorch's history ring (with --history); the docs' example uses 100000, which a long run "
                         "wraps: then PyTorch frees old entries' stacks as it records, as a streaming recorder does")
parser.add_argument("--device", default="cuda", help="cpu: a dry run of the stage's logic on a machine without a GPU")
parser.add_argument("--alternate", help="A,B of plain, history, ours: blocks of --block steps alternate after the warm-up")
parser.add_argument("--block", type=int, default=10)
parser.add_argument("--pause-parts", default="allocator,cupti,sampler,phases,modules",
                    help="with --alternate ...ours...: what the other blocks pause (sawtooth_shim.pause_recording)")
args = parser.parse_args()
shim = sys.modules.get("sawtooth_shim")  # there when sawtooth-record runs this script
recorded = shim is not None and getattr(shim, "_active", None) is not None
modes = args.alternate.split(",") if args.alternate else []
if args.alternate and (len(modes) != 2 or not set(modes) <= {"plain", "history", "ours"} or
                       ("ours" in modes and not recorded) or args.history != "off"):
    parser.error("--alternate takes two of plain, history, ours (ours under sawtooth-record), without --history")


def _recorder_pid():
    """sawtooth-record's process when it runs this one (its parent), else None: its threads'
    CPU is counted beside ours, since the recording's work is split between the two."""
    try:
        with open(f"/proc/{os.getppid()}/comm") as f:
            return os.getppid() if f.read().strip().startswith("sawtooth-rec") else None
    except OSError:
        return None


def thread_cpu():
    """CPU seconds of each of this process's threads now ({tid: (name, seconds)}), and of
    sawtooth-record's ("recorder:" before their names): the scheduler's nanoseconds on a CPU
    (/proc/.../schedstat), not the stat file's 10 ms ticks."""
    out = {}
    for pid, prefix in (("self", ""), (recorder_pid, "recorder:")):
        if pid is None:
            continue
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    name = prefix + f.read().strip()
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    seconds = int(f.read().split()[0]) / 1e9
            except (OSError, ValueError, IndexError):
                continue  # the thread ended, or no schedstat here
            out[int(tid)] = (name, seconds)
    return out


recorder_pid = _recorder_pid() if recorded else None


def charge_threads(config, before, after):
    """Adds each thread's CPU between two thread_cpu() readings to `config`'s account."""
    account = thread_ms.setdefault(config, {})
    for tid, (name, seconds) in after.items():
        key = f"{name}/{tid}"
        account[key] = account.get(key, 0.0) + (seconds - before.get(tid, (name, 0.0))[1]) * 1e3


def switch(mode, current):
    """From one configuration of --alternate to another; returns the new one."""
    if mode == current:
        return current
    if current == "history" and cuda:
        torch.cuda.memory._record_memory_history(enabled=None)
    if current == "ours" and not shim.pause_recording(args.pause_parts.split(",")) and cuda:
        raise SystemExit("sawtooth-record's recording could not be paused (the native tracker only)")
    if mode == "history" and cuda:
        torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python",
                                                 max_entries=args.max_entries)
    if mode == "ours":
        shim.resume_recording()
    return mode

if args.history != "off" and args.device == "cuda":
    torch.cuda.memory._record_memory_history(
        enabled="all", context={"python": "alloc", "python-all": "all", "none-stacks": None}[args.history],
        stacks="python", max_entries=args.max_entries)

torch.manual_seed(0)
device = torch.device("cuda", 0) if args.device == "cuda" else torch.device("cpu")
cuda = device.type == "cuda"
model = GPT2LMHeadModel(GPT2Config(n_layer=args.layers)).to(device)
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=cuda)
tokens = torch.randint(0, model.config.vocab_size, (args.batch, args.seq), device=device)

times, cpu_times, step_config = [], [], []
# With --alternate: each thread's CPU milliseconds in the blocks of each configuration (clock ticks
# read at the block switches, so whole blocks only): which thread a difference in CPU per step is on.
thread_ms, thread_mark, thread_mode = {}, None, None
profile_kernels = None
prof = None
mode = "ours" if recorded else "plain"  # what runs until the warm-up ends
for step in range(args.steps):
    if modes and step >= args.warmup and (step - args.warmup) % args.block == 0:
        now = thread_cpu()
        if thread_mark is not None:
            charge_threads(thread_mode, thread_mark, now)
    if modes and step >= args.warmup:
        mode = switch(modes[((step - args.warmup) // args.block) % 2], mode)
        if (step - args.warmup) % args.block == 0:
            thread_mark, thread_mode = thread_cpu(), mode
    step_config.append(mode if modes and step >= args.warmup else None)
    if args.profile and step == args.warmup:
        from torch.profiler import ProfilerActivity, profile
        memory = bool(args.memory_timeline)
        prof = profile(activities=[ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else []),
                       profile_memory=memory, record_shapes=memory, with_stack=memory)
        prof.__enter__()
    if cuda:
        torch.cuda.synchronize()
    t, cpu = time.perf_counter(), time.process_time()
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=cuda):
        loss = model(tokens, labels=tokens).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    # Before the wait for the GPU (which spins): the step's host work on every thread of the process
    # (launches from Python and from autograd's thread, and a recorder's threads inside the program).
    cpu_times.append((time.process_time() - cpu) * 1e3)
    if cuda:
        torch.cuda.synchronize()
    times.append((time.perf_counter() - t) * 1e3)
    if prof is not None and step == args.warmup + args.profile - 1:
        prof.__exit__(None, None, None)
        if args.memory_timeline:
            prof.export_memory_timeline(args.memory_timeline, device="cuda:0" if cuda else "cpu")
        # Kineto's own view: GPU events it collected (0 would mean CUPTI was not its to use).
        profile_kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
        if not cuda:
            profile_kernels = len(prof.events())
        prof = None

if thread_mark is not None:
    charge_threads(thread_mode, thread_mark, thread_cpu())  # the last block
stats = torch.cuda.memory_stats(device) if cuda else {}
timed = times[args.warmup:]
result = {
    "script": "gpt2_train.py",
    "history": args.history,
    "steps": args.steps,
    "warmup": args.warmup,
    "batch": args.batch,
    "seq": args.seq,
    "parameters": sum(p.numel() for p in model.parameters()),
    "step_ms_median": statistics.median(timed),
    "step_ms_min": min(timed),
    "step_ms_max": max(timed),
    "step_ms": [round(x, 3) for x in times],
    "step_cpu_ms": [round(x, 3) for x in cpu_times],
    "alternate": args.alternate,
    "pause_parts": args.pause_parts if args.alternate else None,
    "block": args.block,
    "step_config": step_config,
    "thread_cpu_ms": {k: {t: round(v, 1) for t, v in sorted(a.items())} for k, a in thread_ms.items()},
    "max_memory_allocated": torch.cuda.max_memory_allocated(device) if cuda else None,
    "max_requested_bytes": stats.get("requested_bytes.all.peak"),
    "max_memory_reserved": torch.cuda.max_memory_reserved(device) if cuda else None,
    "torch": torch.__version__,
    "loss": loss.item(),
}
if args.profile:
    result["profiler_cuda_events"] = profile_kernels
print("RESULT " + json.dumps(result), flush=True)
if args.json:
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
