#!/usr/bin/env python3
"""What recording costs a CPU training loop, beside what torch.profiler costs it alone (issue 27,
item 8): an MLP's 200-step loop (mlp_loop.py) run unrecorded, inside
torch.profiler.profile(profile_memory=True) alone, and through `sawtooth-record --stacks python`,
`--stacks none` (the tracker's CPU reporter, the default) and `--shim portable` (the profiler's
memory events, cut at step boundaries), alternating within each round (the order rotates round by round), over
several rounds; medians per configuration. The loop's seconds are the program's own
(perf_counter around the loop), so start-up and import are not counted; the command's seconds
(start to exit, as the caller waits for it) are given beside them.

The program runs on one CPU (taskset -c PROGRAM_CPU) with one torch thread; the recorder on
another (taskset -c RECORDER_CPU), as on any machine with more than one core. The load average
before and after each round is written down: on a shared machine it says how much to trust the
numbers.

For the recorded runs, the shim's work inside the program's Optimizer.step annotation is read
from the file: the annotation's total time minus the optimizer phase's (the phase is the program's
step between the shim's own hooks).

--before EARLIER_SAWTOOTH_RECORD adds a fifth configuration: that recorder, --stacks python (a
change's cost measured beside the profiler in the same rounds).

Usage: record_overhead.py SAWTOOTH_RECORD PYTHON OUT.md [--rounds N] [--steps N] [--program-cpu C]
       [--recorder-cpu C] [--work DIR] [--before EARLIER_SAWTOOTH_RECORD]
"""
import argparse
import json
import os
import shlex
import sqlite3
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = ("unrecorded", "profiler alone", "recorded, --stacks python", "recorded, --stacks none",
           "recorded, --shim portable")
BEFORE = "recorded by --before, --stacks python"


def command(config, a, trace):
    program = ["taskset", "-c", str(a.program_cpu), a.python, os.path.join(HERE, "mlp_loop.py"), "--steps", str(a.steps)]
    if config == "unrecorded":
        return program
    if config == "profiler alone":
        return program + ["--profiler"]
    stacks = "none" if "none" in config else "python"
    shim = ["--shim", "portable"] if "portable" in config else []
    return ["taskset", "-c", str(a.recorder_cpu), a.before if config == BEFORE else a.record, "--quiet", "--force",
            "--stacks", stacks, *shim, "--out", trace, "--"] + program


def inside_step_annotation(trace):
    """Seconds of annotation Optimizer.step#... not in the optimizer phase, summed over the steps."""
    db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
    try:
        rows = dict(db.execute("SELECT CASE WHEN name LIKE 'Optimizer.step#%' THEN 'annotation' ELSE name END, "
                               "sum(end_ns - begin_ns) FROM phases WHERE name LIKE 'Optimizer.step#%' OR "
                               "(name = 'optimizer' AND kind = 'phase') GROUP BY 1").fetchall())
    finally:
        db.close()
    return (rows.get("annotation", 0) - rows.get("optimizer", 0)) / 1e9


def main():
    p = argparse.ArgumentParser()
    p.add_argument("record")
    p.add_argument("python")
    p.add_argument("out")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--program-cpu", type=int, default=1)
    p.add_argument("--recorder-cpu", type=int, default=0)
    p.add_argument("--work", default="/tmp/sawtooth-record-overhead")
    p.add_argument("--before", help="an earlier sawtooth-record, run as a fifth configuration beside the others")
    a = p.parse_args()
    configs = CONFIGS + ((BEFORE,) if a.before else ())
    os.makedirs(a.work, exist_ok=True)
    loops = {c: [] for c in configs}
    paid = {c: [] for c in configs}
    wall = {c: [] for c in configs}
    inside = {c: [] for c in configs}
    loads = []
    for r in range(a.rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        before = os.getloadavg()[0]
        for config in order:
            trace = os.path.join(a.work, f"round{r}.sawtooth")
            args = command(config, a, trace)
            t = time.perf_counter()
            done = subprocess.run(args, capture_output=True, text=True, timeout=900)
            seconds = time.perf_counter() - t
            if done.returncode != 0:
                sys.exit(f"{config}: exit {done.returncode}: {done.stderr[-2000:]}")
            result = json.loads(done.stdout.strip().splitlines()[-1])
            loops[config].append(result["loop_s"])
            paid[config].append(result["paid_s"])
            wall[config].append(seconds)
            if config.startswith("recorded"):
                inside[config].append(inside_step_annotation(trace))
            print(f"round {r + 1} {config}: loop {result['loop_s']:.3f} s, with stop {result['paid_s']:.3f} s, "
                  f"command {seconds:.2f} s", flush=True)
        loads.append((before, os.getloadavg()[0]))
    write(a, configs, loops, paid, wall, inside, loads)


def write(a, configs, loops, paid, wall, inside, loads):
    med = {c: statistics.median(loops[c]) for c in configs}
    med_paid = {c: statistics.median(paid[c]) for c in configs}
    med_wall = {c: statistics.median(wall[c]) for c in configs}
    base, base_wall = med["unrecorded"], med_wall["unrecorded"]
    lines = [f"# What recording costs a CPU training loop, beside torch.profiler alone ({time.strftime('%Y-%m-%d')})", "",
             "Command (from the repository root):", "", "```",
             " ".join(shlex.quote(x) for x in [sys.executable] + sys.argv), "```", "",
             f"An MLP (4 Linear layers of {512}, Adam, batch 64, one torch thread) runs a {a.steps}-step loop "
             f"(bench/cpu/mlp_loop.py) on CPU {a.program_cpu}; the recorder runs on CPU {a.recorder_cpu}. "
             f"{a.rounds} rounds, the {len(configs)} configurations alternating within each round (the order rotates); medians. "
             "Loop: the program's own clock around the loop; with stop: for the profiler, until its `with` block "
             "has closed (the events processed), for the others the loop; command: start to exit of the whole "
             "command (interpreter start, import, and the recorder's file).", "",
             "| configuration | loop (s) | × unrecorded | with stop (s) | × unrecorded | command (s) | × unrecorded "
             "| shim's work inside Optimizer.step (s, whole run) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in configs:
        shim = f"{statistics.median(inside[c]):.3f}" if inside[c] else "—"
        lines.append(f"| {c} | {med[c]:.3f} | {med[c] / base:.3f} | {med_paid[c]:.3f} | {med_paid[c] / base:.3f} | "
                     f"{med_wall[c]:.2f} | {med_wall[c] / base_wall:.3f} | {shim} |")
    prof = med["profiler alone"] / base
    lines += ["", "Against the target (the recorded loop at most the profiler's own cost + 5 %, i.e. "
              f"≤ {prof + 0.05:.3f}× unrecorded on the loop; ≤ {med_paid['profiler alone'] / base + 0.05:.3f}× "
              "when the profiler's stop is counted):", ""]
    for c in configs[2:]:
        r = med[c] / base
        lines.append(f"- {c}: {r:.3f}× on the loop ({'within' if r <= prof + 0.05 else 'over'} the profiler + 5 %); "
                     f"{med_paid[c] / base:.3f}× against the profiler's {med_paid['profiler alone'] / base:.3f}× "
                     "with its stop")
    paired = {c: statistics.median(loops[c][r] / loops["unrecorded"][r] for r in range(len(loads))) for c in configs}
    lines += ["", "Paired within each round (the load drifts between rounds; each round's loop over that round's "
              "unrecorded loop, median over the rounds): " +
              ", ".join(f"{c} {paired[c]:.3f}×" for c in configs[1:]) + "."]
    lines += ["", "Load average (1 min) before and after each round (2 cores, shared with other work): " +
              ", ".join(f"{b:.1f}→{e:.1f}" for b, e in loads), "", "Each round, loop seconds:", "",
              "| round | " + " | ".join(configs) + " |", "|---|" + "---:|" * len(configs)]
    for r in range(len(loads)):
        lines.append(f"| {r + 1} | " + " | ".join(f"{loops[c][r]:.3f}" for c in configs) + " |")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
