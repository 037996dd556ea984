#!/usr/bin/env python3
"""Summarises long recordings with capture on and off: wall time, records in the file, drops,
step-time p50 and p99, and the ratios the recorder's targets are stated in (issue 11).

Usage: recorder_summary.py OUT_JSON LABEL:CAPTURE:WALL_S:FILE [...]
  LABEL groups a pair (e.g. 100000), CAPTURE is all or none, WALL_S the recorder's wall time.
Python's standard library only (runs on the GPU machine as it is)."""
import json
import os
import sqlite3
import statistics
import sys


def quantile(sorted_values, q):
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[i]


def read(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    events = db.execute("SELECT count(*) FROM events").fetchone()[0]
    kernels = db.execute("SELECT count(*) FROM kernels").fetchone()[0]
    samples = sorted(v for (v,) in db.execute(
        "SELECT value FROM measurements WHERE name = 'step_time_sample_ms' ORDER BY rowid"))
    db.close()
    return {
        "events": events,
        "kernels": kernels,
        "records": events + kernels,
        "dropped": int(meta.get("dropped_records", 0)),
        "full_queue_waits": int(meta.get("capture.full_queue_waits", 0)),
        "complete": meta.get("complete"),
        "steps_timed": len(samples),
        "step_p50_ms": quantile(samples, 0.50),
        "step_p99_ms": quantile(samples, 0.99),
        "step_mean_ms": statistics.fmean(samples) if samples else None,
    }


rows = []
for spec in sys.argv[2:]:
    label, capture, wall, path = spec.split(":", 3)
    row = {"label": label, "capture": capture, "wall_s": float(wall), "file": path}
    try:
        row.update(read(path))
    except Exception as e:  # a recording that failed: say so, keep the others
        row["error"] = str(e)
    rows.append(row)

pairs = []
for label in dict.fromkeys(r["label"] for r in rows):
    on = [r for r in rows if r["label"] == label and r["capture"] == "all"]
    off = [r for r in rows if r["label"] == label and r["capture"] == "none"]
    for a, b in zip(on, off):
        if "error" in a or "error" in b:
            continue
        pairs.append({"label": label, "wall_ratio": a["wall_s"] / b["wall_s"],
                      "p50_ratio": a["step_p50_ms"] / b["step_p50_ms"],
                      "p99_ratio": a["step_p99_ms"] / b["step_p99_ms"],
                      "records": a["records"], "dropped": a["dropped"],
                      "files": [os.path.basename(a["file"]), os.path.basename(b["file"])]})

print(f"{'steps':>8} {'capture':>7} {'wall s':>8} {'records':>11} {'events':>11} {'kernels':>10} {'dropped':>7} "
      f"{'waits':>6} {'p50 ms':>8} {'p99 ms':>8} complete")
for r in rows:
    if "error" in r:
        print(f"{r['label']:>8} {r['capture']:>7} {r['wall_s']:8.1f}  {r['error']}")
        continue
    print(f"{r['label']:>8} {r['capture']:>7} {r['wall_s']:8.1f} {r['records']:11,} {r['events']:11,} {r['kernels']:10,} "
          f"{r['dropped']:7,} {r['full_queue_waits']:6,} {r['step_p50_ms']:8.3f} {r['step_p99_ms']:8.3f} {r['complete']}")
for p in pairs:
    print(f"{p['label']:>8} all/none: wall {p['wall_ratio']:.3f} (target <= 1.10 at 100000), "
          f"p50 {p['p50_ratio']:.3f}, p99 {p['p99_ratio']:.3f} (target <= 1.05), {p['records']:,} records, "
          f"{p['dropped']} dropped ({' vs '.join(p['files'])})")
json.dump({"runs": rows, "pairs": pairs}, open(sys.argv[1], "w"), indent=1)
