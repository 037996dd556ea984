#!/usr/bin/env python3
"""Each allocation a module subtree makes in one step of a .sawtooth recording, with its pass, the
innermost frame of its stack, and the event, module and pass that free it: how the ladder's rules
were checked against a measured rung (bench/results/h100-2026-12-05-b.md).

    layer_lifetimes.py FILE [--module model.layers.5] [--step 10] [--min-bytes 1000000]

Reads the file with sqlite3, read-only; steps are counted by the recording's optimizer phases.
"""
import argparse
import sqlite3

parser = argparse.ArgumentParser()
parser.add_argument("file")
parser.add_argument("--module", default="model.layers.5", help="a module's name: it and its submodules")
parser.add_argument("--step", type=int, default=10, help="the step after this many optimizer phases")
parser.add_argument("--device", type=int, default=0)
parser.add_argument("--min-bytes", type=int, default=1_000_000)
args = parser.parse_args()

db = sqlite3.connect(f"file:{args.file}?mode=ro", uri=True)
modules = dict(db.execute("SELECT id, name FROM modules"))
passes = dict(db.execute("SELECT id, name FROM pass_names"))
frames = {i: (name, file, line) for i, name, file, line in db.execute("SELECT id, name, file, line FROM frames")}
innermost = {s: frames.get(f) for s, f in db.execute("SELECT stack_id, frame_id FROM stacks WHERE depth = 0")}
starts = [b for (b,) in db.execute("SELECT begin_ns FROM phases WHERE name = 'optimizer' ORDER BY begin_ns")]
if args.step < 1 or args.step >= len(starts):
    raise SystemExit(f"the recording has {len(starts)} optimizer phases: --step 1 to {len(starts) - 1}")
t0, t1 = starts[args.step - 1], starts[args.step]

ALLOC, FREE_REQUESTED = 0, 1
alive, rows = {}, []
for seq, action, addr, size, module, pas, stack in db.execute(
        "SELECT seq, action, addr, size, module, pass, stack FROM events WHERE device = ? AND t_ns >= ? AND t_ns < ?"
        " AND action IN (?, ?) ORDER BY seq", (args.device, t0, t1, ALLOC, FREE_REQUESTED)):
    if action == ALLOC:
        alive[addr] = (seq, size, module, pas, stack)
    elif addr in alive:
        rows.append((*alive.pop(addr), seq, module, pas))
rows += [(*made, None, None, None) for made in alive.values()]


def where(frame):
    return f"{frame[0]} {frame[1].rsplit('/', 1)[-1]}:{frame[2]}" if frame else "(no stack)"


for seq, size, module, pas, stack, freed, free_module, free_pass in sorted(rows):
    name = modules.get(module, "(outside modules)")
    if size < args.min_bytes or not (name == args.module or name.startswith(args.module + ".")):
        continue
    end = (f"freed at {freed} in {modules.get(free_module, '(outside modules)')} ({passes.get(free_pass, '-')})"
           if freed is not None else "alive at the step's end")
    print(f"{seq:>8} {size / 1e6:8.1f} MB  {name} ({passes.get(pas, '-')})  {where(innermost.get(stack))}  {end}")
