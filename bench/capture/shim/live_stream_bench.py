#!/usr/bin/env python3
"""What the shim's per-step hooks cost a training loop, live stream batched (the shim's default)
beside sent record by record (channel.LIVE_DELAY_NS = 0, as before batching), in the same run:
a phase's begin and end, and an optimizer step's hooks with N parameters (their gradient tags).
Then the gradient tags alone: written into a prepared buffer (the default) beside packed record by
record (gradient_tags' fallback, what every step did before 2026-12-01's fifth session).
A Unix socket to a thread that drains it stands in for sawtooth-record.

Usage: live_stream_bench.py [--params 148] [--iterations 2000]   (needs torch; CPU tensors)"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "capture", "shim"))
import torch  # noqa: E402
from sawtooth_shim import channel, gradient_tags, phases  # noqa: E402
from drained_channel import drained_channel  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--params", type=int, default=148)  # GPT-2 small's parameter tensors
parser.add_argument("--iterations", type=int, default=2000)
args = parser.parse_args()

ch = drained_channel(channel)
ph = phases.Phases(torch, ch, ch.flush)  # the quiet point flushes, as the shim's does
params = [torch.nn.Parameter(torch.zeros(4)) for _ in range(args.params)]
for p in params:
    p.grad = torch.zeros(4)
optimizer = type("Optimizer", (), {})()
optimizer.param_groups, optimizer.state = [{"params": params}], {}


def per_call_us(fn):
    for _ in range(args.iterations // 10):
        fn()
    t = time.perf_counter()
    for _ in range(args.iterations):
        fn()
    return (time.perf_counter() - t) / args.iterations * 1e6


def phase():
    ph.begin("forward")
    ph.end("forward")


def optimizer_step():
    ph.step_begin(optimizer)
    ph.step_end(optimizer)


batched_delay = channel.LIVE_DELAY_NS
print(f"{'':40s} {'batched':>10s} {'each sent':>10s}")
for name, fn in ((f"phase begin + end", phase), (f"optimizer step hooks, {args.params} gradients", optimizer_step)):
    results = []
    for delay in (batched_delay, 0):
        channel.LIVE_DELAY_NS = delay
        results.append(per_call_us(fn))
    print(f"{name:40s} {results[0]:8.1f} us {results[1]:8.1f} us")
channel.LIVE_DELAY_NS = batched_delay
ch.flush()

tags = gradient_tags.OptimizerTags()
tags.parameters(optimizer)
grads = [p.grad for p in params]
prepared = per_call_us(lambda: tags.gradient_records(time.monotonic_ns()))
one_by_one = per_call_us(lambda: tags._records_one_by_one([p.grad for p in params], time.monotonic_ns()))
print(f"{f'{args.params} gradient tags':40s} {prepared:8.1f} us {one_by_one:8.1f} us   (prepared buffer, one by one)")
