#!/usr/bin/env python3
"""Capture windows through the real sawtooth-record (CPU), checked against a whole recording of the
same deterministic run.

Usage: check_record_windows.py SAWTOOTH_RECORD SAWTOOTH_TRACE OUT_DIR

- --steps A:B: only steps A to B-1 are in the file (4 phases each), its baseline is what the whole
  recording had allocated when step A began, its peak is the whole recording's peak over those
  steps, and the bytes at its end are the whole recording's at the start of step B;
- --window-events N: exactly the last N events are kept, its baseline plus them ends where the
  whole recording ends, the allocated series never goes below what the parameters alone hold, and
  no category goes below zero;
- bad values are refused with exit 2 and a message naming the option.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

record, trace_tool, out = sys.argv[1:4]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
failures = []
RUN = ["--workload", "anatomy", "--device", "cpu", "--set", "layers=3", "--set", "width=64", "--set", "batch=8",
       "--set", "steps=12", "--set", "timed_steps=0"]
CPU = -1
ALLOC, FREE_COMPLETED = 0, 2


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def recorded(name, extra=()):
    p = os.path.join(out, name)
    r = subprocess.run([record, *RUN, "--out", p, *extra], capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr[-400:]}")
    return p


def allocator_rows(p):
    """(t_ns, signed bytes, category) of the CPU allocator's allocs and frees, in file order."""
    db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    rows = db.execute("SELECT t_ns, action, size, category FROM events WHERE device = ? AND source = 0 "
                      "AND action IN (?, ?) ORDER BY seq", (CPU, ALLOC, FREE_COMPLETED)).fetchall()
    baseline = db.execute("SELECT baseline_allocated FROM devices WHERE device = ?", (CPU,)).fetchone()
    starts = [r[0] for r in db.execute("SELECT begin_ns FROM phases WHERE name = 'zero_grad' ORDER BY begin_ns")]
    meta = dict(db.execute("SELECT key, value FROM meta"))
    db.close()
    signed = [(t, size if action == ALLOC else -size, cat) for t, action, size, cat in rows]
    return signed, (baseline[0] if baseline else 0), starts, meta


def series(signed, start):
    out_, a = [], start
    for t, d, _ in signed:
        a += d
        out_.append((t, a))
    return out_


def steps_window(whole):
    p = recorded("steps.sawtooth", ["--steps", "4:7"])
    signed, baseline, starts, meta = allocator_rows(p)
    w_signed, _, w_starts, _ = whole
    check(meta.get("window.steps") == "4:7" and meta.get("complete") == "true", f"--steps meta {meta.get('window.steps')}")
    check(len(starts) == 3, f"--steps 4:7: {len(starts)} steps in the file")
    whole_series = series(w_signed, 0)
    # The whole recording's allocated bytes when step 4 began, and when step 7 began.
    at = lambda t: ([a for tt, a in whole_series if tt < t] or [0])[-1]
    # Times differ between the two runs: compare by position, counting allocator events per step.
    w_before = [i for i, (t, _, _) in enumerate(w_signed) if t < w_starts[4]]
    w_in = [i for i, (t, _, _) in enumerate(w_signed) if w_starts[4] <= t < w_starts[7]]
    check(baseline == at(w_starts[4]), f"--steps: baseline {baseline} != whole recording at step 4 {at(w_starts[4])}")
    check(len(signed) == len(w_in), f"--steps: {len(signed)} allocator events, the whole recording has {len(w_in)} there")
    mine = series(signed, baseline)
    inside = set(w_in)
    theirs = [a for i, (t, a) in enumerate(whole_series) if i in inside]
    check([a for _, a in mine] == theirs, "--steps: the allocated series differs from the whole recording's")
    check(mine and mine[-1][1] == at(w_starts[7]), "--steps: the bytes at its end differ")
    s = json.loads(subprocess.run([trace_tool, "info", "--json", p], capture_output=True, text=True).stdout)
    dev = [d for d in s["devices"] if d["device"] == CPU][0]
    check(dev["peak_allocated_bytes"] == max(theirs), f"--steps: peak {dev['peak_allocated_bytes']} vs {max(theirs)}")
    for cat, peak in dev.get("category_peaks", {}).items():
        check(peak >= 0, f"--steps: category {cat} peak {peak}")
    print(f"--steps 4:7: {len(signed)} allocator events from a baseline of {baseline} B; "
          f"{len(w_before)} before it in the whole recording", flush=True)


def events_window(whole_path, whole):
    db = sqlite3.connect(f"file:{whole_path}?mode=ro", uri=True)
    n = db.execute("SELECT count(*) FROM events").fetchone()[0] // 2  # the run's second half
    db.close()
    p = recorded("window.sawtooth", ["--window-events", str(n)])
    signed, baseline, starts, meta = allocator_rows(p)
    w_signed, _, _, _ = whole
    db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    rows = db.execute("SELECT count(*), min(seq), max(seq) FROM events").fetchone()
    db.close()
    check(rows == (n, 0, n - 1), f"--window-events {n}: rows (count, min seq, max seq) {rows}")
    check(int(meta.get("window.events_discarded", 0)) > 0, f"--window-events: discarded {meta.get('window.events_discarded')}")
    mine = series(signed, baseline)
    whole_final = series(w_signed, 0)[-1][1]
    check(mine and mine[-1][1] == whole_final, f"--window-events: ends at {mine and mine[-1][1]}, the whole run at {whole_final}")
    params = 4 * 3 * 64 * 64
    # The parameters live until the workload ends (its teardown, in the window, frees them too).
    check(starts and all(a >= params for t, a in mine if t < starts[-1]),
          "--window-events: allocated below the parameters' bytes before the last step")
    check(all(a >= 0 for _, a in mine), "--window-events: allocated below zero")
    s = json.loads(subprocess.run([trace_tool, "info", "--json", p], capture_output=True, text=True).stdout)
    dev = [d for d in s["devices"] if d["device"] == CPU][0]
    for cat, peak in dev.get("category_peaks", {}).items():
        check(peak >= 0, f"--window-events: category {cat} peak {peak}")
    print(f"--window-events {n}: baseline {baseline} B, {meta.get('window.events_discarded')} events left out", flush=True)


def bad_values():
    for args, needle in ((["--steps", "5"], "--steps 5: no ':'"), (["--steps", "6:3"], "B must be above A"),
                         (["--steps", "x:3"], "A is not a step number"), (["--window-events", "-4"], "--window-events -4"),
                         (["--sample-interval", "-1"], "--sample-interval -1")):
        r = subprocess.run([record, *RUN, "--out", os.path.join(out, "bad.sawtooth"), *args], capture_output=True,
                           text=True, timeout=60)
        check(r.returncode == 2 and needle in r.stderr, f"{args}: exit {r.returncode}, {r.stderr!r}")
        check(not os.path.exists(os.path.join(out, "bad.sawtooth")), f"{args}: a file was left behind")


whole_path = recorded("whole.sawtooth")
whole = allocator_rows(whole_path)
check(len(whole[2]) == 12, f"whole recording: {len(whole[2])} steps")
steps_window(whole)
events_window(whole_path, whole)
bad_values()

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all sawtooth-record window checks passed")
