#!/usr/bin/env python3
"""What the shim's live stream costs a loop shaped like a training step: 12 ms of Python work
holding the GIL (forward), 18 ms with the GIL let go (backward in autograd's engine), 1 ms of work
(optimizer), the step's flush, 6 ms more; phase markers between them as the shim makes them. The
wall time per step is what the program pays, sends and the sending thread's GIL hand-overs
included. A Unix socket to a thread that drains it stands in for sawtooth-record.

  --variant default    the channel as it is
  --variant nothread   no sweeping thread and no mid-step sends: the step's flush sends all
                       (the floor: what batching cannot go below)
  --shim DIR           another version's shim (e.g. `git archive` of an older commit), to compare

Usage: live_sweep_bench.py [--variant default|nothread] [--shim DIR] [--steps 200]"""
import argparse
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--variant", choices=["default", "nothread"], default="default")
parser.add_argument("--shim", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "capture", "shim"))
parser.add_argument("--steps", type=int, default=200)
args = parser.parse_args()
sys.path.insert(0, args.shim)
from sawtooth_shim import channel, wire  # noqa: E402
from drained_channel import drained_channel  # noqa: E402

if args.variant == "nothread":
    channel.SWEEP_S, channel.LIVE_DELAY_NS = 1e6, 10**15
ch = drained_channel(channel)


def work(ms):
    """Python bytecode for `ms` milliseconds, the GIL held as a model's forward holds it."""
    end = time.perf_counter() + ms / 1000
    x = 0
    while time.perf_counter() < end:
        for i in range(100):
            x += i


def phase(kind, name):
    ch.record(kind, addr=ch.name_id(name))


def step():
    phase(wire.PHASE_BEGIN, "forward")
    work(12)
    phase(wire.PHASE_END, "forward")
    phase(wire.PHASE_BEGIN, "backward")
    time.sleep(0.018)
    phase(wire.PHASE_END, "backward")
    phase(wire.PHASE_BEGIN, "optimizer")
    work(1)
    phase(wire.PHASE_END, "optimizer")
    ch.flush()
    work(6)


t = time.perf_counter()
for _ in range(args.steps):
    step()
print(f"{args.variant:10s} {(time.perf_counter() - t) / args.steps * 1e3:.3f} ms/step  ({args.shim})")
