#!/usr/bin/env python3
"""The report of gpt2_train.py --alternate A,B runs (stage_foreign_alternate): the cost of A over
B measured inside one process, where blocks of steps alternate between the two.

Each block's first step is left out (it pays for the switch); each block's median step time is
compared with the mean of its neighbours of the other configuration (the blocks before and after
it: a machine whose speed drifts linearly hits both sides alike). The ratio A/B is the median over
those comparisons, with a 95 % bootstrap interval (comparisons resampled), for wall time and for
the process's CPU time per step. Where the run counted each thread's CPU (thread_cpu_ms), a second
table says which threads the difference in CPU is on: milliseconds per step in A's blocks and B's.
Usage: alternate_report.py RESULT.json..."""
import json
import os
import statistics
import sys

from bootstrap import median_interval


def blocks(result):
    """[(config, [wall ms...], [cpu ms...])] in order, each block without its first step."""
    out = []
    for i, config in enumerate(result.get("step_config") or []):
        if config is None:
            continue
        if not out or out[-1][0] != config or out[-1][3] != i - 1:
            out.append([config, [], [], i])
            continue
        out[-1][1].append(result["step_ms"][i])
        out[-1][2].append(result["step_cpu_ms"][i])
        out[-1][3] = i
    return [(c, w, p) for c, w, p, _ in out if w]


def ratios(bs, a, which):
    """A over B for each block of either configuration against its neighbours of the other."""
    med = [statistics.median(b[which]) for b in bs]
    out = []
    for i, b in enumerate(bs):
        others = [med[j] for j in (i - 1, i + 1) if 0 <= j < len(bs) and bs[j][0] != b[0]]
        if not others:
            continue
        other = statistics.fmean(others)
        out.append(med[i] / other if b[0] == a else other / med[i])
    return out


def pct(r):
    return f"{(r - 1) * 100:+.2f} %"


lines = ["| run | A / B | blocks | wall: median (95 % interval) | CPU per step: median (95 % interval) |",
         "|---|---|---:|---:|---:|"]
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        lines.append(f"| {os.path.basename(path)} | unreadable: {e} | | | |")
        continue
    if not isinstance(result, dict) or "step_config" not in result:
        continue  # a trace's summary beside the script's result (the stages' file patterns catch both)
    a, b = (result.get("alternate") or ",").split(",")
    parts = result.get("pause_parts")
    label = " / ".join(f"{m} (pausing {parts})" if m == "ours" and parts else m for m in (a, b))
    bs = blocks(result)
    cells = []
    for which in (1, 2):
        r = ratios(bs, a, which)
        if not r:
            cells.append("n/a")
            continue
        lo, hi = median_interval(r)
        cells.append(f"{pct(statistics.median(r))} ({pct(lo)} … {pct(hi)})")
    lines.append(f"| {os.path.basename(path)} | {label} | {len(bs)} | {cells[0]} | {cells[1]} |")
threads = []
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            result = json.load(f)
    except (OSError, ValueError):
        continue
    if not isinstance(result, dict) or not result.get("thread_cpu_ms"):
        continue
    a, b = (result.get("alternate") or ",").split(",")
    config = result.get("step_config") or []
    steps = {m: sum(1 for c in config if c == m) for m in (a, b)}
    accounts = result["thread_cpu_ms"]
    names = sorted(set(accounts.get(a, {})) | set(accounts.get(b, {})))
    for name in names:
        per = [accounts.get(m, {}).get(name, 0.0) / steps[m] if steps[m] else 0.0 for m in (a, b)]
        if max(per) < 0.05:
            continue  # idle in both
        threads.append(f"| {os.path.basename(path)} | {name} | {per[0]:.3f} | {per[1]:.3f} | {per[0] - per[1]:+.3f} |")
if threads:
    lines += ["", "| run | thread | CPU ms per step, A | B | A − B |", "|---|---|---:|---:|---:|"] + threads
print("\n".join(lines))
