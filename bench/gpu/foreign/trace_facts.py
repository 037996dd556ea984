#!/usr/bin/env python3
"""Facts of a .sawtooth recording that the GPU report needs and `sawtooth-trace info` does not
print: kernel, driver-event, sample and stack counts, and the program-recording meta keys.
Usage: trace_facts.py FILE.sawtooth > FILE.facts.json (stdlib only: the GPU machine has no sqlite3 CLI)."""
import json
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
one = lambda sql: db.execute(sql).fetchone()[0]
facts = {
    "kernels": one("SELECT count(*) FROM kernels"),
    "driver_events": one("SELECT count(*) FROM events WHERE source = 1"),
    "samples": one("SELECT count(*) FROM events WHERE source = 3"),
    "events_with_stacks": one("SELECT count(*) FROM events WHERE stack IS NOT NULL"),
    "annotations": one("SELECT count(*) FROM phases WHERE kind = 'annotation'"),
    "phases": one("SELECT count(*) FROM phases WHERE kind = 'phase'"),
    "meta": {k: v[:400] for k, v in db.execute("SELECT key, value FROM meta")
             if k.startswith(("program.", "capture.", "oom.", "cupti", "cuda_", "torch_", "device."))
             or k in ("complete", "incomplete_reason", "shim_mode", "notices", "result", "dropped_records")},
}
print(json.dumps(facts, indent=1))
