#!/usr/bin/env python3
"""bench/core/gen_snapshot.py writes snapshots whose allocator could exist: no two segments overlap
(those left at the end, and each segment_alloc against the segments mapped before it), and each
segment's blocks lie inside it, in address order, without overlapping each other.

Usage: check_gen_snapshot.py GEN_SNAPSHOT_PY   (exit 0 when every check passes)
"""
import os
import pickle
import subprocess
import sys
import tempfile


def problems(snapshot):
    found = []
    segments = sorted((s["address"], s["total_size"], s) for s in snapshot["segments"])
    for (a, n, _), (b, _, _) in zip(segments, segments[1:]):
        if a + n > b:
            found.append(f"segments at {a:#x} (+{n}) and {b:#x} overlap")
    for a, n, s in segments:
        cursor = a
        for block in s["blocks"]:
            if block["address"] < cursor or block["address"] + block["size"] > a + n:
                found.append(f"segment {a:#x}: block {block['address']:#x} (+{block['size']}) is outside it or "
                             f"overlaps the block before")
            cursor = block["address"] + block["size"]
    mapped = []
    for k, e in enumerate(snapshot["device_traces"][0]):
        if e["action"] != "segment_alloc":
            continue
        for b, m in mapped:
            if e["addr"] < b + m and b < e["addr"] + e["size"]:
                found.append(f"event {k}: segment_alloc {e['addr']:#x} (+{e['size']}) overlaps the segment at {b:#x}")
        mapped.append((e["addr"], e["size"]))
    return found


def main():
    generator = sys.argv[1]
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for extra in ([], ["--frames-per-event", "--python-stacks"]):
            out = os.path.join(tmp, "snapshot.pickle")
            subprocess.run([sys.executable, generator, "--events", "60000", "--out", out, *extra], check=True,
                           stderr=subprocess.DEVNULL)
            with open(out, "rb") as f:
                snapshot = pickle.load(f)
            found = problems(snapshot)
            segments = len(snapshot["segments"])
            print(f"gen_snapshot {' '.join(extra) or '(defaults)'}: {segments} segments, {len(found)} problems")
            for p in found[:10]:
                print("  " + p)
            failed |= bool(found) or segments < 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
