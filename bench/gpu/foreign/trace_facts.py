#!/usr/bin/env python3
"""Facts of a .sawtooth recording that the GPU report needs and `sawtooth-trace info` does not
print: kernel, driver-event, sample and stack counts, the program-recording meta keys, and digests
of the events' stacks as text (two recordings of one deterministic script name the same stacks).
Usage: trace_facts.py FILE.sawtooth > FILE.facts.json (stdlib only: the GPU machine has no sqlite3 CLI)."""
import hashlib
import json
import sqlite3
import sys

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
one = lambda sql: db.execute(sql).fetchone()[0]


def stack_digests():
    """sha256 of the distinct stacks (as frame text) and of the stacks with their event counts."""
    frames = {i: f"{n}|{f}|{l}" for i, n, f, l in db.execute("SELECT id, name, file, line FROM frames")}
    text = {}
    for sid, _, fid in db.execute("SELECT stack_id, depth, frame_id FROM stacks ORDER BY stack_id, depth"):
        text.setdefault(sid, []).append(frames.get(fid, "?"))
    counted = sorted(("\n".join(text.get(sid, [])), n)
                     for sid, n in db.execute("SELECT stack, count(*) FROM events WHERE stack IS NOT NULL GROUP BY stack"))
    digest = lambda items: hashlib.sha256(repr(items).encode()).hexdigest()[:16]
    return {"distinct_stacks": len(counted), "stacks_digest": digest(sorted({t for t, _ in counted})),
            "stacks_with_counts_digest": digest(counted)}


facts = {
    "kernels": one("SELECT count(*) FROM kernels"),
    "driver_events": one("SELECT count(*) FROM events WHERE source = 1"),
    "samples": one("SELECT count(*) FROM events WHERE source = 3"),
    "events_with_stacks": one("SELECT count(*) FROM events WHERE stack IS NOT NULL"),
    "annotations": one("SELECT count(*) FROM phases WHERE kind = 'annotation'"),
    "phases": one("SELECT count(*) FROM phases WHERE kind = 'phase'"),
    **stack_digests(),
    "meta": {k: v[:400] for k, v in db.execute("SELECT key, value FROM meta")
             if k.startswith(("program.", "capture.", "oom.", "cupti", "cuda_", "torch_", "device."))
             or k in ("complete", "incomplete_reason", "shim_mode", "notices", "result", "dropped_records")},
}
print(json.dumps(facts, indent=1))
