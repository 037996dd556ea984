#!/usr/bin/env python3
"""End-to-end checks of `sawtooth-trace segments`, `diff` and `info`'s block peaks against an
independent reading of each snapshot with Python's standard library (pickle, refusing globals).

For every snapshot: the replayed segments at the last event equal the snapshot's own `segments`
(address, size, stream, pool, expandable; every block's address, size, state, and requested size
when in use), the allocated bytes per segment and device equal the snapshot's `allocated_size`,
the requested bytes of the state at the peak equal info's peak, a diff of the file with itself is
all zeros and sums to its peak, and known truths (the allocator model's counter for the synthetic
fixtures, or PyTorch's own max_memory_allocated from a GPU run) equal peak_allocated_block_bytes.

Usage: check_allocator_state.py SAWTOOTH_TRACE OUT_DIR [--expected FILE.json] [--samples DIR] PATH...
PATH: snapshot files, or folders whose *.pickle / *.pickle.gz snapshots are all checked.
--expected: {basename: {"devices": [{"device", "peak_allocated_block_bytes", ...}]}}
--samples: .sawtooth recordings whose c10 memory reports (source "host") give PyTorch's block sizes.
"""
import argparse
import glob
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from independent_reader import DataOnlyUnpickler, read_bytes  # noqa: E402
import io  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("tool")
parser.add_argument("out")
parser.add_argument("--expected")
parser.add_argument("--samples")
parser.add_argument("paths", nargs="+")
args = parser.parse_args()
os.makedirs(args.out, exist_ok=True)
failures = []
checked = 0


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run(*a):
    return subprocess.run([args.tool, *a], capture_output=True, text=True, timeout=300)


def run_json(*a):
    r = run(*a)
    if not check(r.returncode == 0, f"{' '.join(a)}: exit {r.returncode}: {r.stderr.strip()[:300]}"):
        return None
    return json.loads(r.stdout)


def snapshot_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(glob.glob(os.path.join(p, "*.pickle")) + glob.glob(os.path.join(p, "*.pickle.gz")))
        else:
            out.append(p)
    return [f for f in out if not os.path.basename(f).startswith("hostile_")]


def load_snapshot(path):
    snap = DataOnlyUnpickler(io.BytesIO(read_bytes(path))).load()
    if isinstance(snap, list):
        snap = {"segments": snap, "device_traces": []}
    return snap


def expected_segments(snap, device):
    """The snapshot's own segments of a device, as `segments --json` writes them."""
    out = []
    for s in sorted((s for s in snap.get("segments", []) if s["device"] == device), key=lambda s: s["address"]):
        addr = s["address"]
        blocks = []
        for b in s["blocks"]:
            a = b.get("address", addr)
            active = b["state"] != "inactive"
            blocks.append((a, b["size"], b["state"], b.get("requested_size", b["size"]) if active else None))
            addr = a + b["size"]
        out.append({"seg": (s["address"], s["total_size"], s["stream"], s["segment_type"], bool(s.get("is_expandable", False))),
                    "blocks": blocks, "allocated": s["allocated_size"], "requested": s["requested_size"]})
    return out


def replayed_segments(device_json):
    out = []
    for s in device_json["segments"]:
        blocks = [(b["address"], b["size"], b["state"], b["requested_size"] if b["state"] != "inactive" else None)
                  for b in s["blocks"]]
        out.append({"seg": (s["address"], s["total_size"], s["stream"], s["pool"], s["expandable"]), "blocks": blocks,
                    "allocated": s["allocated_bytes"], "requested": s["requested_bytes"]})
    return out


expected = json.load(open(args.expected)) if args.expected else {}
files = snapshot_files(args.paths)
for path in files:
    name = os.path.basename(path)
    snap = load_snapshot(path)
    info = run_json("info", path, "--json")
    seg = run_json("segments", path, "--json")
    if info is None or seg is None:
        continue
    checked += 1
    devices = sorted({s["device"] for s in snap["segments"]} | set(range(len(snap.get("device_traces", [])))))
    by_device = {d["device_index"]: d for d in seg["devices"]}
    info_by_device = {d["device"]: d for d in info["devices"]}
    for dev in devices:
        where = f"{name} cuda:{dev}"
        d = by_device.get(dev)
        if not check(d is not None and "error" not in d, f"{where}: not replayed: {d and d.get('error')}"):
            continue
        exp, got = expected_segments(snap, dev), replayed_segments(d)
        check([s["seg"] for s in got] == [s["seg"] for s in exp], f"{where}: segment set differs")
        for g, e in zip(got, exp):
            check(g["blocks"] == e["blocks"], f"{where}: blocks of segment {e['seg'][0]:#x} differ: {g['blocks'][:4]} vs {e['blocks'][:4]}")
            check(g["allocated"] == e["allocated"], f"{where}: segment {e['seg'][0]:#x} allocated {g['allocated']} != {e['allocated']}")
            check(g["requested"] == e["requested"], f"{where}: segment {e['seg'][0]:#x} requested {g['requested']} != {e['requested']}")
        allocated = sum(s["allocated"] for s in exp)
        check(d["allocated_bytes"] == allocated, f"{where}: allocated {d['allocated_bytes']} != snapshot {allocated}")
        check(d["reserved_bytes"] == sum(s["seg"][1] for s in exp), f"{where}: reserved differs")
        check(d["replay"]["matches_snapshot"] is True, f"{where}: replay says {d['replay'].get('differences')}")
        check(d["replay"]["anomalies"] == 0, f"{where}: anomalies {d['replay']['anomaly_notes'][:3]}")
        inf = info_by_device[dev]
        check(inf["final_allocated_block_bytes"] == allocated, f"{where}: info final blocks {inf['final_allocated_block_bytes']} != {allocated}")
        check(inf["peak_allocated_block_bytes"] >= allocated, f"{where}: block peak below the final value")
        # The requested bytes of the replayed state at info's peak event are info's peak.
        at = run_json("segments", path, "--json", "--device", str(dev), "--at", str(inf["peak_allocated_event_index"]))
        if at:
            check(at["devices"][0]["requested_bytes"] == inf["peak_allocated_bytes"],
                  f"{where}: requested bytes at the peak {at['devices'][0]['requested_bytes']} != {inf['peak_allocated_bytes']}")
        truth = {e["device"]: e for e in expected.get(name, {}).get("devices", [])}.get(dev)
        if truth:
            bound = d["replay"]["inferred_bytes_max"]
            peak = inf["peak_allocated_block_bytes"]
            ok = peak == truth["peak_allocated_block_bytes"] if bound == 0 else \
                peak <= truth["peak_allocated_block_bytes"] <= peak + bound
            check(ok, f"{where}: peak_allocated_block_bytes {peak} vs truth {truth['peak_allocated_block_bytes']} (bound {bound})")
            print(f"{where}: peak_allocated_block_bytes {peak}, truth {truth['peak_allocated_block_bytes']}, "
                  f"peak_allocated_bytes (requested) {inf['peak_allocated_bytes']}")
            if "oom" in truth:  # PyTorch's reserved and allocated bytes right after the failure
                trace = snap["device_traces"][dev]
                at = max(i for i, e in enumerate(trace) if e["action"] == "oom")
                state = run_json("segments", path, "--json", "--device", str(dev), "--at", str(at))
                if state:
                    s0 = state["devices"][0]
                    check(s0["reserved_bytes"] == truth["oom"]["reserved_bytes"] and
                          s0["allocated_bytes"] == truth["oom"]["allocated_bytes"],
                          f"{where}: at the OOM reserved {s0['reserved_bytes']} allocated {s0['allocated_bytes']}, "
                          f"PyTorch {truth['oom']['reserved_bytes']} / {truth['oom']['allocated_bytes']}")
                    print(f"{where}: OOM: replayed reserved {s0['reserved_bytes']} allocated {s0['allocated_bytes']}; "
                          f"PyTorch {truth['oom']['reserved_bytes']} / {truth['oom']['allocated_bytes']}; "
                          f"{s0.get('oom', {}).get('summary')}")

    # Diff of the file with itself: all zeros, each side summing to the peak on the largest device.
    diff = run_json("diff", path, path, "--json")
    if diff:
        top = max(info["devices"], key=lambda d: d["peak_allocated_bytes"])
        check(all(r["growth"] == 0 and r["a_bytes"] == r["b_bytes"] for r in diff["sites"]), f"{name}: self diff not zero")
        for side in ("a", "b"):
            total = sum(r[f"{side}_bytes"] for r in diff["sites"])
            check(total == top["peak_allocated_bytes"] == diff[side]["peak_allocated_bytes"],
                  f"{name}: diff {side} sums to {total}, peak {top['peak_allocated_bytes']}")

    # The native format keeps the segments: the converted file replays the same way.
    native = os.path.join(args.out, name + ".sawtooth")
    r = run("convert", path, native)
    if check(r.returncode == 0, f"{name}: convert: {r.stderr.strip()}"):
        back = run_json("segments", native, "--json")
        if back:
            check([replayed_segments(d) for d in back["devices"]] == [replayed_segments(d) for d in seg["devices"] if "error" not in d],
                  f"{name}: segments differ after convert")
        os.remove(native)

# Diffs across files: each side sums to its own peak.
for a, b in zip(files, files[1:]):
    diff = run_json("diff", a, b, "--json")
    if not diff:
        continue
    for side, path in (("a", a), ("b", b)):
        info = run_json("info", path, "--json")
        top = max(d["peak_allocated_bytes"] for d in info["devices"])
        total = sum(r[f"{side}_bytes"] for r in diff["sites"])
        check(total == top == diff[side]["peak_allocated_bytes"], f"diff {a} {b}: side {side} sums to {total}, peak {top}")

# Recordings that carry PyTorch's own block sizes (c10 memory reporting): the block peak matches.
if args.samples:
    for path in sorted(glob.glob(os.path.join(args.samples, "*.sawtooth"))):
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        live = peak = reports = 0
        for action, size in db.execute("SELECT action, size FROM events_named WHERE device = 0 AND source = 'host' ORDER BY seq"):
            live += size if action == "alloc" else -size
            peak = max(peak, live)
            reports += 1
        info = run_json("info", path, "--json")
        if info and reports:  # a recorded Python program (gpt2.sawtooth) has no c10 reports of its own
            d = [x for x in info["devices"] if x["device"] == 0][0]
            check(d["peak_allocated_block_bytes"] == peak, f"{path}: block peak {d['peak_allocated_block_bytes']} != PyTorch's {peak}")
            checked += 1
        runs = [r["name"] for r in info["runs"]] if info else []
        if len(runs) >= 2:
            diff = run_json("diff", path, path, "--run", runs[0], "--run", runs[-1], "--json")
            if diff:
                for side, run_name in (("a", runs[0]), ("b", runs[-1])):
                    run_peak = max(p["peak_allocated_bytes"] for r in info["runs"] if r["name"] == run_name for p in r["peaks"])
                    total = sum(r[f"{side}_bytes"] for r in diff["sites"])
                    check(total == run_peak, f"{path}: runs diff side {side} sums to {total}, run peak {run_peak}")

# What cannot be done says so.
if files:
    first = files[0]
    r = run("segments", first, "--at", "99999999")
    check(r.returncode == 1 and "--at" in r.stderr, f"--at out of range: exit {r.returncode} {r.stderr!r}")
    r = run("segments", first, "--device", "cuda:77")
    check(r.returncode == 1 and "no device" in r.stderr, f"unknown device: exit {r.returncode} {r.stderr!r}")
    r = run("diff", first, first, "--run", "x")
    check(r.returncode == 1 and "no run 'x'" in r.stderr, f"missing run: exit {r.returncode} {r.stderr!r}")
    r = run("diff", first, first, "--run", "x", "--run", "y", "--run", "z")
    check(r.returncode == 2, f"three --run: exit {r.returncode}")
profiler = [p for p in args.paths if os.path.isdir(p) for p in glob.glob(os.path.join(p, "*profiler_trace.json*"))]
for path in profiler:
    r = run("segments", path)
    check(r.returncode == 1 and "cannot be replayed" in r.stderr, f"{path}: segments of a profiler trace: {r.stderr!r}")

if failures:
    print(f"{len(failures)} check(s) failed over {checked} file(s)")
    sys.exit(1)
print(f"all allocator checks passed ({checked} files)")
