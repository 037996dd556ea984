#!/usr/bin/env python3
"""The reference for Sawtooth's snapshot import: Python's own pickle.loads on the same bytes,
the bytes already in memory (reading the file is not timed; Sawtooth's timing includes it).

Each file is timed with the garbage collector as Python runs by default (PyTorch's
_memory_viz.py and most user scripts), and with gc.disable(), the cheaper and stricter
reference: the collector's passes over millions of new dicts cost more than the unpickling.

Prints one JSON object per line: {"file", "events", "bytes", "gc", "runs", "seconds": [...],
"min", "median"}.  Usage: time_pickle_loads.py [--runs 3] FILE...
"""
import argparse
import gc
import json
import os
import pickle
import statistics
import sys
import time


def time_loads(raw, runs, gc_enabled):
    seconds = []
    events = 0
    for _ in range(runs):
        gc.collect()
        if not gc_enabled:
            gc.disable()
        start = time.perf_counter()
        obj = pickle.loads(raw)
        seconds.append(time.perf_counter() - start)
        gc.enable()
        events = sum(len(t) for t in obj.get("device_traces", [])) if isinstance(obj, dict) else 0
        del obj
    return seconds, events


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        with open(path, "rb") as f:
            raw = f.read()
        for gc_enabled in (True, False):
            seconds, events = time_loads(raw, args.runs, gc_enabled)
            print(json.dumps({"file": os.path.basename(path), "events": events, "bytes": len(raw),
                              "gc": "enabled" if gc_enabled else "disabled", "runs": args.runs,
                              "seconds": [round(s, 4) for s in seconds], "min": round(min(seconds), 4),
                              "median": round(statistics.median(seconds), 4)}), flush=True)
    print(f"python {sys.version.split()[0]}, pickle protocol {pickle.HIGHEST_PROTOCOL} supported", file=sys.stderr)


if __name__ == "__main__":
    main()
