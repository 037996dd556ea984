#!/usr/bin/env python3
"""The report of stage_foreign_overhead (bench/gpu/stages/foreign.sh): GPT-2 small step times of
the unrecorded script, PyTorch's own history recording (alloc stacks) and sawtooth-record with and
without Python stacks, over rounds run back to back.
  paired: in each round, a case's median step time over the reference's in the same round; the
          median over the rounds (a slow stretch of the machine hits one round's cases alike);
  medians: the median over rounds of each run's median step time;
  p10:     the median over rounds of each run's 10th-percentile step time (the machine's good
           moments: slow stretches inflate medians, not the fast tail);
  pooled:  every timed step of a case's runs together, low percentiles (the best the case reaches).
Usage: overhead_report.py DIR"""
import glob
import json
import os
import re
import statistics
import sys

from bootstrap import median_interval

labels = {"plain": "unrecorded", "history": "PyTorch `_record_memory_history` (alloc stacks, python)",
          "history100k": "PyTorch `_record_memory_history` (alloc stacks, max_entries=100000: the ring wraps)",
          "ours": "sawtooth-record (native tracker, Python stacks; CUPTI without kernel records, the default)",
          "nostacks": "sawtooth-record --stacks none (CUPTI without kernel records, the default)",
          "ourskernels": "sawtooth-record --kernels on (Python stacks, CUPTI's kernel records)",
          "nostackskernels": "sawtooth-record --stacks none --kernels on",
          "shimonly": "sawtooth-record --stacks none --cupti off (the shim and tracker alone)",
          "nocupti": "sawtooth-record --cupti off (Python stacks, no kernels, driver events or samples)",
          "nocache": "sawtooth-record, Python stacks, the tracker's frame cache off"}
d = sys.argv[1]
runs = {}  # case -> round -> step times after warm-up
cpu_runs = {}  # case -> round -> the process's CPU time per step before its final synchronize
for path in glob.glob(os.path.join(d, "*-*.json")):
    m = re.match(rf"({'|'.join(labels)})-(\d+)\.json$", os.path.basename(path))
    if not m:
        continue
    try:
        with open(path) as f:
            result = json.load(f)
        steps = result["step_ms"][1:]  # the first timed step still warms up
        cpu_steps = result.get("step_cpu_ms", [])[1:]
    except (OSError, ValueError, KeyError):
        continue
    if steps:
        runs.setdefault(m.group(1), {})[int(m.group(2))] = steps
    if cpu_steps:
        cpu_runs.setdefault(m.group(1), {})[int(m.group(2))] = cpu_steps


def p10(v):
    v = sorted(v)
    return v[len(v) // 10]


def pct(ratio):
    return f"{(ratio - 1) * 100:+.2f} %" if ratio else "n/a"


def stat(case, f):
    vals = [f(s) for s in runs.get(case, {}).values()]
    return statistics.median(vals) if vals else None


def paired(case, ref, f=statistics.median):
    ratios = [f(runs[case][r]) / f(runs[ref][r]) for r in runs.get(case, {}) if r in runs.get(ref, {})]
    return (statistics.median(ratios), min(ratios), max(ratios), len(ratios), *median_interval(ratios)) if ratios else None


out = [f"# Recording overhead on GPT-2 small ({len(runs.get('plain', {}))} rounds)", "",
       "| case | median ms/step | p10 ms/step | median vs unrecorded | median vs PyTorch history |",
       "|---|---:|---:|---:|---:|"]
base, hist = stat("plain", statistics.median), stat("history", statistics.median)
for case in labels:
    med, low = stat(case, statistics.median), stat(case, p10)
    if med is None:
        out.append(f"| {labels[case]} | n/a | | | |")
        continue
    out.append(f"| {labels[case]} | {med:.2f} | {low:.2f} | {pct(med / base if base else None)} | "
               f"{pct(med / hist if hist else None)} |")
out += ["", "Paired within rounds (median over rounds; its 95 % bootstrap interval; min … max):", ""]
for case, ref, target in (("ours", "history", "target ≤ +1 %"), ("ours", "history100k", "target ≤ +1 %"),
                          ("nostacks", "plain", "target ≤ +1 %"),
                          ("history", "plain", "PyTorch's own cost"), ("ours", "plain", ""),
                          ("ourskernels", "ours", "CUPTI's kernel records, Python stacks"),
                          ("nostackskernels", "nostacks", "CUPTI's kernel records"),
                          ("ourskernels", "history", ""), ("nostackskernels", "plain", ""),
                          ("ours", "nocache", "what the frame cache saves"),
                          ("ours", "nocupti", "CUPTI's share"), ("nocupti", "history", "ours without CUPTI"),
                          ("nostacks", "shimonly", "CUPTI without kernel records"),
                          ("shimonly", "plain", "the shim and tracker without CUPTI")):
    for name, f in (("median", statistics.median), ("p10", p10)):
        p = paired(case, ref, f)
        if p:
            out.append(f"- {case} / {ref} ({name} step): {pct(p[0])} (95 % interval {pct(p[4])} … {pct(p[5])}; "
                       f"rounds {pct(p[1])} … {pct(p[2])}, {p[3]} rounds) {target}")
out += ["", "Pooled steps (every timed step of a case's runs):", ""]
for case in labels:
    steps = sorted(x for s in runs.get(case, {}).values() for x in s)
    if steps:
        out.append(f"- {case}: {len(steps)} steps; " +
                   ", ".join(f"p{q} {steps[len(steps) * q // 100]:.2f}" for q in (1, 5, 10, 25, 50)) + " ms")
if cpu_runs:
    out += ["", "Host CPU per step (the process's CPU time up to the step's final synchronize: launches on every "
            "thread and the recorder's threads inside the program; a host's steal time does not inflate it, "
            "GIL waits do not count):", "",
            "| case | median CPU ms/step | vs unrecorded, paired | vs PyTorch history, paired |", "|---|---:|---:|---:|"]

    def cpu_paired(case, ref):
        ratios = [statistics.median(cpu_runs[case][r]) / statistics.median(cpu_runs[ref][r])
                  for r in cpu_runs.get(case, {}) if r in cpu_runs.get(ref, {})]
        return pct(statistics.median(ratios)) if ratios else "n/a"

    for case in labels:
        if case in cpu_runs:
            med = statistics.median(statistics.median(v) for v in cpu_runs[case].values())
            out.append(f"| {labels[case]} | {med:.2f} | {cpu_paired(case, 'plain')} | {cpu_paired(case, 'history')} |")
peaks = []
for path in sorted(glob.glob(os.path.join(d, "*-*.info.json"))):
    name = os.path.basename(path)[:-10]
    try:
        with open(path) as f:
            info = json.load(f)
        with open(os.path.join(d, name + ".json")) as f:
            script = json.load(f)
        dev = next((x for x in info.get("devices", []) if x.get("device") == 0), {})
        meta = info.get("meta", {})
        peaks.append(f"{name}: peak {dev.get('peak_allocated_bytes')} vs the script's max_requested_bytes "
                     f"{script.get('max_requested_bytes')}; in blocks {dev.get('peak_allocated_block_bytes')} vs "
                     f"max_memory_allocated {script.get('max_memory_allocated')}; PyTorch's history "
                     f"{meta.get('shim_history', '?')}, kernels {meta.get('kernels', '?')}")
    except (OSError, ValueError, AttributeError):
        pass
if peaks:
    out += ["", "Peaks of the recorded runs (requested sizes, and replayed in blocks) beside the script's own:", ""]
    out += [f"- {p}" for p in peaks]
caps = []
for path in sorted(glob.glob(os.path.join(d, "ours-*.capture.json")) + glob.glob(os.path.join(d, "nocache-*.capture.json")) +
                   glob.glob(os.path.join(d, "nocupti-*.capture.json"))):
    try:
        with open(path) as f:
            tracker = json.loads(json.load(f).get("capture.tracker") or "{}")
        caps.append(f"{os.path.basename(path)[:-13]}: {tracker.get('events')} events in {tracker.get('deliveries')} "
                    f"deliveries, symbolizing {tracker.get('symbolize_ms')} ms ({tracker.get('frames_symbolized')} "
                    f"frames named by torch, {tracker.get('stacks_from_cache')} stacks from the cache)")
    except (OSError, ValueError, AttributeError):
        pass
if caps:
    out += ["", "The tracker's deliveries (Python stacks):", ""] + [f"- {c}" for c in caps]
digests = {}
for path in sorted(glob.glob(os.path.join(d, "*.facts.json"))):
    try:
        with open(path) as f:
            facts = json.load(f)
        digests[os.path.basename(path)[:-11]] = (facts["distinct_stacks"], facts["stacks_digest"],
                                                 facts["stacks_with_counts_digest"], facts["events_with_stacks"])
    except (OSError, ValueError, KeyError):
        pass
if digests:
    out += ["", "Stacks named (distinct stacks, digest of the distinct stacks' text, digest with event counts, "
            "events with stacks) — with and without the frame cache they should agree:", ""]
    out += [f"- {name}: {v[0]} stacks, {v[1]}, {v[2]}, {v[3]} events" for name, v in digests.items()]
    kinds = {v[1] for v in digests.values()}
    out.append(f"- distinct-stack digests: {'all equal' if len(kinds) == 1 else f'{len(kinds)} different'}")
print("\n".join(out))
