#!/usr/bin/env python3
"""Step-time spread of the CPU workloads with PyTorch's intra-op threads at one per core (as before)
against one core left to the capture (sawtooth-record's default on the CPU since issue 29, item 7).
Runs each workload at CPU scale, alternating the two settings, and writes a Markdown summary.

Usage: cpu_threads_spread.py SAWTOOTH_RECORD SAWTOOTH_TRACE OUT.md [PAIRS]"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

record, trace_tool, out_md = sys.argv[1:4]
pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
cores = len(os.sched_getaffinity(0))
workloads = ("checkpointing", "accumulation")
settings = {f"{cores} threads (one per core)": str(cores), f"{max(1, cores - 1)} thread(s) (a core left)": None}


def load_average():
    return open("/proc/loadavg").read().split()[0]


def samples(workload, omp, tmp, i):
    path = os.path.join(tmp, f"{workload}-{i}-{omp or 'default'}.sawtooth")
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    if omp:
        env["OMP_NUM_THREADS"] = omp
    subprocess.run([record, "--workload", workload, "--device", "cpu", "--out", path], env=env, check=True,
                   capture_output=True, timeout=600)
    info = json.loads(subprocess.run([trace_tool, "info", "--json", path], check=True, capture_output=True,
                                     text=True, timeout=120).stdout)
    return {r["name"]: [m["value"] for m in r["measurements"] if m["name"].endswith("_sample_ms")]
            for r in info["runs"] if any(m["name"].endswith("_sample_ms") for m in r["measurements"])}


rows = []
with tempfile.TemporaryDirectory() as tmp:
    for i in range(pairs):
        for workload in workloads:
            for label, omp in settings.items():
                load = load_average()
                for run, ms in samples(workload, omp, tmp, i).items():
                    rows.append((workload, label, i + 1, load, run, statistics.median(ms), min(ms), max(ms)))

with open(out_md, "w") as f:
    f.write("# CPU step times: one intra-op thread per core, or a core left to the capture\n\n")
    f.write(f"Command: `{' '.join(['bench/capture/cpu_threads_spread.py', *sys.argv[1:]])}` on a machine of "
            f"{cores} cores shared with other jobs (the 1-minute load average at each recording's start is shown).\n\n")
    for workload in workloads:
        f.write(f"## {workload}\n\n| threads | pass | load | run | median ms | min ms | max ms |\n|---|---|---|---|---|---|---|\n")
        for w, label, i, load, run, med, lo, hi in rows:
            if w == workload:
                f.write(f"| {label} | {i} | {load} | {run} | {med:.1f} | {lo:.1f} | {hi:.1f} |\n")
        f.write("\n")
        for label in settings:
            meds = [r[5] for r in rows if r[0] == workload and r[1] == label]
            highs = [r[7] for r in rows if r[0] == workload and r[1] == label]
            f.write(f"- {label}: medians {min(meds):.1f}–{max(meds):.1f} ms, slowest sample {max(highs):.1f} ms\n")
        f.write("\n")
print(out_md)
