#!/usr/bin/env python3
"""Independent reading of PyTorch memory files, with Python's standard library only.

Computes, from the same files the C++ importers read, the numbers `sawtooth-trace info --json`
must print, using the definitions in issue 2 (and DESIGN.md):
  allocated moves by `size` at alloc (+) and free_completed (-); it starts at the sum of
  `requested_size` of blocks active_allocated / active_pending_free at the end, minus the
  trace's net change. Reserved moves by `size` at segment_alloc/segment_map (+) and
  segment_free/segment_unmap (-), starting at the final segments' total_size minus the net.
For torch.profiler traces the series are the events' own "Total Allocated"/"Total Reserved".
For torch.profiler memory timelines (export_memory_timeline) each category's bytes are the file's own
numbers; events are their changes (see memory_timeline_expected). JAX memory profiles: independent_pprof.py.

Usage: independent_reader.py FILE...   prints {basename: expected} as JSON.
It never unpickles anything but plain data (find_class refuses every global).
"""
import gzip
import io
import json
import os
import pickle
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import independent_pprof  # noqa: E402


class DataOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"global {module}.{name} refused")


def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def snapshot_expected(data):
    snap = DataOnlyUnpickler(io.BytesIO(data)).load()
    if isinstance(snap, list):
        snap = {"segments": snap, "device_traces": []}
    traces = snap.get("device_traces", [])
    segments = snap.get("segments", [])
    devices = sorted(set(range(len(traces))) | {s["device"] for s in segments})
    actions = Counter(e["action"] for t in traces for e in t)
    out = {"format": "pytorch-snapshot", "events": sum(len(t) for t in traces),
           "actions": dict(sorted(actions.items())), "devices": []}
    for d in devices:
        trace = traces[d] if d < len(traces) else []
        final_alloc = sum(b["requested_size"] for s in segments if s["device"] == d for b in s["blocks"]
                          if b["state"] in ("active_allocated", "active_pending_free"))
        final_res = sum(s["total_size"] for s in segments if s["device"] == d)
        net_a = sum(e["size"] if e["action"] == "alloc" else -e["size"]
                    for e in trace if e["action"] in ("alloc", "free_completed"))
        net_r = sum(e["size"] if e["action"] in ("segment_alloc", "segment_map") else -e["size"]
                    for e in trace if e["action"] in ("segment_alloc", "segment_map", "segment_free", "segment_unmap"))
        a = final_alloc - net_a
        r = final_res - net_r
        peak_a, peak_a_i, peak_r = a, -1, r
        for i, e in enumerate(trace):
            if e["action"] == "alloc":
                a += e["size"]
            elif e["action"] == "free_completed":
                a -= e["size"]
            elif e["action"] in ("segment_alloc", "segment_map"):
                r += e["size"]
            elif e["action"] in ("segment_free", "segment_unmap"):
                r -= e["size"]
            if a > peak_a:
                peak_a, peak_a_i = a, i
            peak_r = max(peak_r, r)
        out["devices"].append({
            "device": d, "events": len(trace), "peak_allocated_bytes": peak_a,
            "peak_allocated_event_index": peak_a_i, "final_allocated_bytes": a,
            "peak_reserved_bytes": peak_r,
            "oom_events": sum(1 for e in trace if e["action"] == "oom"),
        })
    return out


def profiler_expected(data):
    doc = json.loads(data)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    mem = [e for e in events if e.get("name") in ("[memory]", "[OutOfMemory]")]
    mem.sort(key=lambda e: e["ts"])  # stable, as the importer sorts
    def device_of(e):
        a = e["args"]
        return -1 if a["Device Type"] == 0 else a["Device Id"]
    actions = Counter()
    per = {}
    for e in mem:
        b = e["args"]["Bytes"]
        act = "oom" if e["name"] == "[OutOfMemory]" else ("alloc" if b >= 0 else "free_completed")
        actions[act] += 1
        per.setdefault(device_of(e), []).append((act, e["args"]))
    out = {"format": "torch-profiler", "events": len(mem), "actions": dict(sorted(actions.items())), "devices": []}
    for d in sorted(per):
        evs = per[d]
        first_act, first = evs[0]
        a0 = first["Total Allocated"] - (0 if first_act == "oom" else first["Bytes"])
        peak_a, peak_i = a0, -1
        for i, (_, args) in enumerate(evs):
            if args["Total Allocated"] > peak_a:
                peak_a, peak_i = args["Total Allocated"], i
        out["devices"].append({
            "device": d, "events": len(evs), "peak_allocated_bytes": peak_a,
            "peak_allocated_event_index": peak_i, "final_allocated_bytes": evs[-1][1]["Total Allocated"],
            "peak_reserved_bytes": max([evs[0][1]["Total Reserved"]] + [x["Total Reserved"] for _, x in evs]),
            "oom_events": sum(1 for act, _ in evs if act == "oom"),
        })
    return out


# torch/profiler/_memory_profiler.py: _CATEGORY_TO_INDEX (the raw form's codes; the plot form's columns
# 1..8 after a leading 0) and Action (1 preexisting, 2 create, 3 increment_version, 4 destroy).
TORCH_CATEGORIES = ["parameter", "optimizer_state", "input", "temporary", "activation", "gradient",
                    "autograd_detail", "unknown"]


def memory_timeline_expected(data):
    """Plot points [times, sizes]: a category's bytes are sizes[i][1 + c]; an event is each change of a
    category between rows, decreases before increases, in column order. Raw events
    [t, action, bytes, category]: an event each, in file order, except an increment_version pair that
    leaves and re-enters one category (no bytes move)."""
    doc = json.loads(data)
    changes = []  # (category, signed bytes)
    if len(doc) == 2 and isinstance(doc[1], list) and (not doc[1] or isinstance(doc[1][0], list)):
        times, sizes = doc
        assert len(times) == len(sizes) and all(len(r) == 9 and r[0] == 0 for r in sizes)
        file_peaks = {name: max(r[1 + c] for r in sizes) for c, name in enumerate(TORCH_CATEGORIES)}
        prev = [0] * 9
        for row in sizes:
            deltas = [(TORCH_CATEGORIES[k - 1], row[k] - prev[k]) for k in range(1, 9)]
            changes += [d for d in deltas if d[1] < 0] + [d for d in deltas if d[1] > 0]
            prev = row
    else:
        file_peaks = None
        i = 0
        while i < len(doc):
            t, action, nbytes, cat = doc[i]
            if (action == 3 and nbytes < 0 and i + 1 < len(doc) and doc[i + 1][1] == 3 and doc[i + 1][0] == t
                    and doc[i + 1][3] == cat and doc[i + 1][2] == -nbytes):
                i += 2
                continue
            if nbytes:
                changes.append((TORCH_CATEGORIES[cat], nbytes))
            i += 1
    live = {name: 0 for name in TORCH_CATEGORIES}
    peaks = dict(live)
    total, peak, peak_i = 0, 0, -1
    for i, (cat, delta) in enumerate(changes):
        live[cat] += delta
        peaks[cat] = max(peaks[cat], live[cat])
        total += delta
        if total > peak:
            peak, peak_i = total, i
    if file_peaks is not None:
        # The plot form's category peaks are its columns' maxima, as the file holds them.
        assert all(v >= 0 for v in file_peaks.values()) and file_peaks == peaks, (file_peaks, peaks)
    actions = Counter("alloc" if d > 0 else "free_completed" for _, d in changes)
    return {"format": "torch-memory-timeline", "events": len(changes), "actions": dict(sorted(actions.items())),
            "devices": [{"device": 0, "events": len(changes), "peak_allocated_bytes": peak,
                         "peak_allocated_event_index": peak_i, "final_allocated_bytes": total,
                         "peak_reserved_bytes": 0, "oom_events": 0, "category_peaks": peaks}]}


def expected(path):
    data = read_bytes(path)
    if data[:1] == b"\x80" or data[:1] in (b"(", b"}", b"]"):
        return snapshot_expected(data)
    if data[:1] == b"\x0a" and data[2:3] in (b"\x08", b"\x10"):  # pprof: field 1, a ValueType
        return independent_pprof.expected(data)
    if data.lstrip()[:1] == b"[" and data.lstrip()[1:].lstrip()[:1] == b"[":
        return memory_timeline_expected(data)
    return profiler_expected(data)


if __name__ == "__main__":
    result = {os.path.basename(p): expected(p) for p in sys.argv[1:]}
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
