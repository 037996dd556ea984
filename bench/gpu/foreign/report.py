#!/usr/bin/env python3
"""The report of the foreign-program stages (bench/gpu/stages/foreign.sh): reads what they left in
RESULTS_DIR and prints a Markdown summary with the numbers the issue asks for — overhead against
the unrecorded script and against PyTorch's own history recording, peak allocated against the
script's own torch.cuda figures (requested and block sizes), CUPTI records, the OOM post-mortem,
torch.profiler beside the injection, torchrun ranks, a LibTorch binary.
Usage: report.py RESULTS_DIR"""
import glob
import json
import os
import statistics
import sys

d = sys.argv[1]


def load(name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def result_line(name):
    try:
        with open(os.path.join(d, f"{name}.stdout")) as f:
            for line in f:
                if line.startswith("RESULT "):
                    return json.loads(line[7:])
    except OSError:
        pass
    return None


def finished(name):
    try:
        with open(os.path.join(d, f"{name}.progress.jsonl")) as f:
            lines = [json.loads(x) for x in f if x.strip()]
        return lines[-1] if lines else {}
    except (OSError, ValueError):
        return {}


def cuda0(info):
    for dev in (info or {}).get("devices", []):
        if dev.get("device") == 0:
            return dev
    return {}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def pct(a, b):
    return f"{(a / b - 1) * 100:+.2f} %" if a and b else "n/a"


out = ["# sawtooth-record -- COMMAND on the H200", ""]

# Overhead
plain = median([(load(f) or {}).get("step_ms_median") for f in sorted(glob.glob(os.path.join(d, "plain-*.json")))])
torch_history = median([(load(os.path.basename(f)) or {}).get("step_ms_median")
                        for f in sorted(glob.glob(os.path.join(d, "torch-history-[0-9].json")))])
torch_all = (load("torch-history-all.json") or {}).get("step_ms_median")
ours = {name: median([(result_line(os.path.basename(f)[:-7]) or {}).get("step_ms_median")
                      for f in sorted(glob.glob(os.path.join(d, f"{name}*.stdout")))])
        for name in ("ours-native", "ours-nocupti", "ours-nostacks", "ours-portable")}
out += ["## GPT-2 small, bf16, batch 8 x 512, AdamW (median step time after warm-up, median over rounds)", "",
        "| run | ms / step | vs unrecorded | vs PyTorch's history |", "|---|---:|---:|---:|"]
rows = [("unrecorded", plain), ("PyTorch `_record_memory_history` (alloc stacks, python)", torch_history),
        ("PyTorch `_record_memory_history` (all: alloc and free stacks)", torch_all),
        ("sawtooth-record, native tracker, Python stacks", ours["ours-native"]),
        ("sawtooth-record, native tracker, Python stacks, no CUPTI (no kernels, driver events, samples)",
         ours["ours-nocupti"]),
        ("sawtooth-record, native tracker, no stacks", ours["ours-nostacks"]),
        ("sawtooth-record, portable (history read at step boundaries)", ours["ours-portable"])]
for label, v in rows:
    out.append(f"| {label} | {v:.2f} | {pct(v, plain)} | {pct(v, torch_history)} |" if v else f"| {label} | n/a | | |")
out.append("")

# Categories beside torch.profiler's memory timeline (same script, unrecorded, 2 profiled steps)
theirs, ours_cat = (cuda0(load(f"{name}.info.json")) or ((load(f"{name}.info.json") or {}).get("devices") or [{}])[0]
                    for name in ("profiler-categories", "categories"))
if theirs and ours_cat:
    a, b = ours_cat.get("category_peaks") or {}, theirs.get("category_peaks") or {}
    out += ["## Category peaks: ours against torch.profiler's memory timeline (the same script)", "",
            "| category | ours | torch.profiler |", "|---|---:|---:|"]
    out += [f"| {k} | {a.get(k, 0):,} | {b.get(k, 0):,} |" for k in sorted(set(a) | set(b))]
    out += [f"| peak (all) | {ours_cat.get('peak_allocated_bytes') or 0:,} | {theirs.get('peak_allocated_bytes') or 0:,} |", ""]

# Peaks against the script's own figures
out += ["## Peak allocated: the recording against the script's own torch.cuda", "",
        "| run | trace peak (requested sizes) | script max_requested_bytes | trace peak in blocks (replayed) "
        "| script max_memory_allocated (blocks) | blocks vs script |", "|---|---:|---:|---:|---:|---:|"]
for name in sorted({os.path.basename(f)[:-10] for f in glob.glob(os.path.join(d, "ours-*.info.json"))}):
    info, res = load(f"{name}.info.json"), result_line(name) or {}
    peak, blocks = cuda0(info).get("peak_allocated_bytes"), cuda0(info).get("peak_allocated_block_bytes")
    out.append(f"| {name} | {peak} | {res.get('max_requested_bytes')} | {blocks} | {res.get('max_memory_allocated')} | "
               f"{pct(blocks, res.get('max_memory_allocated'))} |")
facts = load("ours-native-1.facts.json") or {}
info = load("ours-native-1.info.json") or {}
out += ["", f"Categories at their peaks (ours-native-1, cuda:0): `{json.dumps(cuda0(info).get('category_peaks'))}`",
        f"Memory order check: `{json.dumps(cuda0(info).get('memory_order'))}`",
        f"CUPTI: {facts.get('kernels')} kernels, {facts.get('driver_events')} driver events, {facts.get('samples')} "
        f"device samples, {facts.get('events_with_stacks')} events with stacks; meta `{json.dumps(facts.get('meta'))}`", ""]

# OOM
oom_info, oom_facts = load("oom.info.json") or {}, load("oom.facts.json") or {}
out += ["## Out of memory", "",
        f"exit {finished('oom').get('exit_code')}; oom events {cuda0(oom_info).get('oom_events')}; "
        f"meta `{json.dumps({k: v for k, v in (oom_facts.get('meta') or {}).items() if k.startswith(('oom.', 'result', 'complete'))})}`",
        ""]

# Profiler beside the injection
prof_facts, prof_res = load("profiler.facts.json") or {}, result_line("profiler") or {}
out += ["## torch.profiler (CUDA activity) run by the program while recorded", "",
        f"Kineto's CUDA events: {prof_res.get('profiler_cuda_events')}; our kernels {prof_facts.get('kernels')}, driver "
        f"events {prof_facts.get('driver_events')}; notices: {json.dumps((prof_facts.get('meta') or {}).get('notices'))}", ""]

# torchrun
tr = load("torchrun.info.json") or {}
out += ["## torchrun, 2 ranks", "", f"exit {finished('torchrun').get('exit_code')}; runs: " +
        "; ".join(f"{r['name']}: peaks {json.dumps(r.get('peaks'))}" for r in tr.get("runs", [])), ""]

# LibTorch binary
lt = load("libtorch.facts.json") or {}
lti = load("libtorch.info.json") or {}
out += ["## A LibTorch binary (sawtooth-record --workload anatomy --capture none) under the injection", "",
        f"exit {finished('libtorch').get('exit_code')}; kernels {lt.get('kernels')}, driver events {lt.get('driver_events')}, "
        f"samples {lt.get('samples')}; series peaks `{json.dumps(cuda0(lti).get('series_peaks'))}`", ""]
print("\n".join(out))
