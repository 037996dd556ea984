#!/usr/bin/env python3
"""End-to-end checks of the real sawtooth-trace binary against the independent reader's numbers.
Usage: check_sawtooth_trace.py SAWTOOTH_TRACE DATA_DIR OUT_DIR"""
import csv
import json
import shutil
import sqlite3
import os
import subprocess
import sys

tool, data, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
expected_all = json.load(open(os.path.join(data, "expected_info.json")))
failures = []


def run(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def info(path):
    r = run("info", path, "--json")
    check(r.returncode == 0, f"info {path} exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout) if r.returncode == 0 else None


KEYS = ["device", "events", "peak_allocated_bytes", "peak_allocated_event_index", "final_allocated_bytes",
        "peak_reserved_bytes", "oom_events"]

for name, expected in expected_all.items():
    got = info(os.path.join(data, name))
    if got is None:
        continue
    check(got["format"] == expected["format"], f"{name}: format {got['format']}")
    check(got["events"] == expected["events"], f"{name}: events {got['events']} != {expected['events']}")
    check(got["actions"] == expected["actions"], f"{name}: actions {got['actions']}")
    check(len(got["devices"]) == len(expected["devices"]), f"{name}: device count")
    for g, e in zip(got["devices"], expected["devices"]):
        for k in KEYS:
            check(g[k] == e[k], f"{name} device {e['device']}: {k} {g[k]} != {e[k]}")
        if "category_peaks" in e:
            check(g.get("category_peaks") == e["category_peaks"],
                  f"{name} device {e['device']}: category_peaks {g.get('category_peaks')} != {e['category_peaks']}")
    if expected["format"] == "jax-memory-profile":
        measured = {m["name"]: m["value"] for m in got["runs"][0]["measurements"]}
        for e in expected["devices"]:
            label = "cpu:0" if e["device"] == -1 else f"cuda:{e['device']}"
            check(measured.get(f"live_bytes {label}") == e["final_allocated_bytes"], f"{name}: live bytes on {label}")
            check(measured.get(f"live_buffers {label}") == e["live_buffers"], f"{name}: live buffers on {label}")
        check(measured.get("executables") == expected["executables"], f"{name}: executables {measured.get('executables')}")

    # Round trip through the native format gives the same info.
    native = os.path.join(out, name + ".sawtooth")
    r = run("convert", os.path.join(data, name), native)
    check(r.returncode == 0, f"convert {name}: {r.stderr.strip()}")
    back = info(native)
    if back:
        check(back["format"] == "sawtooth" and back["source_format"] == expected["format"], f"{name}: native format")
        for k in ("events", "actions", "devices", "phases", "stacks"):
            check(back[k] == got[k], f"{name}: round trip changed {k}")

    # CSV exports.
    events_csv = os.path.join(out, name + ".events.csv")
    r = run("export", os.path.join(data, name), "--csv", "events", events_csv)
    check(r.returncode == 0, f"export events {name}: {r.stderr.strip()}")
    rows = list(csv.DictReader(open(events_csv)))
    check(len(rows) == expected["events"], f"{name}: events.csv has {len(rows)} rows")
    series_csv = os.path.join(out, name + ".series.csv")
    r = run("export", os.path.join(data, name), "--csv", "series", series_csv)
    check(r.returncode == 0, f"export series {name}")
    rows = list(csv.DictReader(open(series_csv)))
    for e in expected["devices"]:
        label = "cpu" if e["device"] == -1 else f"cuda:{e['device']}"
        values = [int(x["value_bytes"]) for x in rows if x["device"] == label and x["series"] == "allocated"]
        check(max(values) == e["peak_allocated_bytes"], f"{name}: series.csv peak {max(values)}")

    # Chrome trace with counter tracks.
    chrome = os.path.join(out, name + ".chrome.json")
    r = run("export", os.path.join(data, name), "--chrome-trace", chrome)
    check(r.returncode == 0, f"export chrome {name}")
    doc = json.load(open(chrome))
    counters = [ev for ev in doc["traceEvents"] if ev["ph"] == "C" and ev["name"] == "allocated bytes"]
    check(max(ev["args"]["value"] for ev in counters) == max(d["peak_allocated_bytes"] for d in expected["devices"]),
          f"{name}: chrome counter peak")

# Unreadable inputs: exit 1 and one line naming the file and the reason.
for bad, needle in [("does-not-exist.pickle", "cannot open"),
                    ("hostile_global_reduce_p2.pickle", "byte 32: opcode GLOBAL"),
                    ("hostile_stack_global_p4.pickle", "STACK_GLOBAL")]:
    path = os.path.join(data, bad)
    r = run("info", path)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 1, f"{bad}: exit {r.returncode}")
    check(len(lines) == 1 and path in lines[0] and needle in lines[0], f"{bad}: stderr {r.stderr!r}")
    check(r.stdout == "", f"{bad}: printed to stdout")

# torch.profiler's HTML memory timeline is a picture: refused, saying what to export instead.
html = os.path.join(out, "memory_timeline.html")
with open(html, "w") as f:
    f.write('<html>\n<head><meta charset="utf-8" /><title>GPU Memory Timeline HTML</title></head>\n'
            "<body>\n  <img src='data:image/png;base64,iVBORw0KGgo='>\n</body>\n</html>")
r = run("info", html)
check(r.returncode == 1 and html in r.stderr and ".raw.json.gz" in r.stderr, f"html: {r.stderr!r}")

truncated = os.path.join(out, "truncated.pickle")
with open(os.path.join(data, "anatomy_adam_snapshot.pickle"), "rb") as f:
    open(truncated, "wb").write(f.read()[:100000])
r = run("info", truncated)
check(r.returncode == 1 and "truncated" in r.stderr and truncated in r.stderr, f"truncated: {r.stderr!r}")

r = run("export", os.path.join(data, "anatomy_adam_snapshot.pickle"))
check(r.returncode == 2, f"export without a target: exit {r.returncode}")
r = run("frobnicate")
check(r.returncode != 0, "unknown subcommand accepted")
# Every command-line parse error is exit 2 (CLI11's own codes are 1xx), and --help lists the codes.
for args in (["frobnicate"], ["info"], ["info", "a", "b"], ["--no-such-option"],
             ["export", os.path.join(data, "anatomy_adam_snapshot.pickle"), "--csv", "nope", "x.csv"]):
    r = run(*args)
    check(r.returncode == 2 and r.stderr.strip(), f"{args}: exit {r.returncode}, {r.stderr.strip()!r}")
# Every command reads within the limits it is given, segments and diff included.
snapshot = os.path.join(data, "h200_allocator_window.pickle")
for args in (["segments", snapshot], ["diff", snapshot, os.path.join(data, "h200_allocator_expandable.pickle")],
             ["info", snapshot], ["oom", snapshot]):
    r = run(*args, "--limit", "events=10")
    check(r.returncode == 1 and "the events limit" in r.stderr and "--limit events=" in r.stderr,
          f"{args[0]} with --limit events=10: exit {r.returncode}, {r.stderr.strip()!r}")
    r = run(*args, "--max-memory", "64K")
    check(r.returncode == 1 and "--max-memory" in r.stderr, f"{args[0]} --max-memory 64K: exit {r.returncode}, {r.stderr.strip()!r}")
    r = run(*args, "--max-memory", "lots")
    check(r.returncode == 2, f"{args[0]} --max-memory lots: exit {r.returncode}")
# --summaries: a .sawtooth file's segments, diff and modules from its summaries and the nearest
# allocator state it stores, to the byte what reading it whole gives.
converted = {}
for name in ("h200_allocator_expandable.pickle", "h200_allocator_window.pickle", "anatomy_adam_snapshot.pickle",
             "h200_allocator_oom.pickle"):
    converted[name] = os.path.join(out, name + ".sawtooth")
    r = run("convert", os.path.join(data, name), converted[name])
    check(r.returncode == 0, f"convert {name}: exit {r.returncode}, {r.stderr.strip()!r}")
for name, path in converted.items():
    for at in ([], ["--at", "0"], ["--at", "-1"]):
        whole, summ = run("segments", path, "--json", *at), run("segments", path, "--json", "--summaries", *at)
        check(whole.returncode == 0 and summ.returncode == 0,
              f"segments {name} {at}: exit {whole.returncode} / {summ.returncode}: {summ.stderr.strip()!r}")
        if whole.returncode == 0 and summ.returncode == 0:
            w, s = json.loads(whole.stdout), json.loads(summ.stdout)
            for dw, ds in zip(w["devices"], s["devices"]):
                for key in ("event_index", "segments", "reserved_bytes", "allocated_bytes", "requested_bytes", "blocks",
                            "oom"):
                    check(dw.get(key) == ds.get(key), f"segments --summaries {name} {at}: {key} differs")
            # The OOM snapshot ends at its failure: both explain it.
            if name == "h200_allocator_oom.pickle" and not at:
                check(all("oom" in d for d in s["devices"]), "segments --summaries at an out-of-memory: not explained")
a, b = converted["h200_allocator_window.pickle"], converted["h200_allocator_expandable.pickle"]
whole, summ = run("diff", a, b, "--json"), run("diff", a, b, "--json", "--summaries")
check(whole.returncode == 0 and summ.returncode == 0, f"diff --summaries: exit {summ.returncode}: {summ.stderr.strip()!r}")
if whole.returncode == 0 and summ.returncode == 0:
    w, s = json.loads(whole.stdout), json.loads(summ.stdout)
    alive = lambda d: {(r["site"], r["category"]): (r["a_bytes"], r["b_bytes"]) for r in d["sites"] if r["a_bytes"] or r["b_bytes"]}
    check(alive(w) == alive(s), "diff --summaries: the bytes alive at each peak differ from the whole files'")
    check(w["a"]["peak_allocated_bytes"] == s["a"]["peak_allocated_bytes"], "diff --summaries: A's peak differs")
    check(s["a"]["total_allocated"] is None and all(r["a_total_allocated"] is None for r in s["sites"]),
          "diff --summaries: totals over a side are not counted, so null")
# --totals: one pass over each file's events counts what each site allocated: the whole files' diff.
summ = run("diff", a, b, "--json", "--summaries", "--totals")
check(summ.returncode == 0, f"diff --summaries --totals: exit {summ.returncode}: {summ.stderr.strip()!r}")
if whole.returncode == 0 and summ.returncode == 0:
    w, s = json.loads(whole.stdout), json.loads(summ.stdout)
    totals = lambda d: {(r["site"], r["category"]): (r["a_total_allocated"], r["b_total_allocated"]) for r in d["sites"]}
    check(totals(w) == totals(s) and w["a"]["total_allocated"] == s["a"]["total_allocated"],
          "diff --summaries --totals: what each site allocated differs from the whole files'")
r = run("diff", a, b, "--totals")
check(r.returncode == 2 and "--summaries" in r.stderr, f"diff --totals alone: exit {r.returncode}, {r.stderr.strip()!r}")
r = run("diff", a, b, "--summaries", "--run", "0")
check(r.returncode == 2 and "--run" in r.stderr, f"diff --summaries --run: exit {r.returncode}, {r.stderr.strip()!r}")
r = run("modules", a, "--summaries")
check(r.returncode == 1 and "no modules" in r.stderr, f"modules --summaries of a snapshot: {r.stderr.strip()!r}")

# oom: the first out-of-memory's post-mortem, read whole and from the summaries alike.
oom_files = {"h200_allocator_oom.pickle": converted["h200_allocator_oom.pickle"]}
oom_files["oom_mlp_snapshot_protocol2.pickle.gz"] = os.path.join(out, "oom_mlp.sawtooth")
r = run("convert", os.path.join(data, "oom_mlp_snapshot_protocol2.pickle.gz"), oom_files["oom_mlp_snapshot_protocol2.pickle.gz"])
check(r.returncode == 0, f"convert oom_mlp: exit {r.returncode}, {r.stderr.strip()!r}")
for name, path in oom_files.items():
    whole, summ = run("oom", path, "--json"), run("oom", path, "--json", "--summaries")
    check(whole.returncode == 0 and summ.returncode == 0,
          f"oom {name}: exit {whole.returncode} / {summ.returncode}: {whole.stderr.strip()!r} {summ.stderr.strip()!r}")
    if whole.returncode == 0 and summ.returncode == 0:
        w, s = json.loads(whole.stdout), json.loads(summ.stdout)
        check(w["oom"] is not None and w["oom"]["largest_blocks"] and "summary" in w["oom"]["explanation"],
              f"oom {name}: no post-mortem or explanation: {whole.stdout[:300]!r}")
        w["file"] = s["file"] = None
        check(w == s, f"oom {name}: --summaries differs from the file read whole")
        check(isinstance(w["oom"]["largest_blocks"][0]["size_bytes"], int), f"oom {name}: sizes are not integers")
    r = run("oom", path)
    check(r.returncode == 0 and "out of memory on cuda:0" in r.stdout and "why: Asked for" in r.stdout,
          f"oom {name} (text): {r.stdout[:300]!r}")
# A file written before the summaries kept their index of out-of-memory events: found by the pass,
# the same document.
older = os.path.join(out, "oom_mlp_older.sawtooth")
shutil.copyfile(oom_files["oom_mlp_snapshot_protocol2.pickle.gz"], older)
with sqlite3.connect(older) as db:
    db.execute("DROP TABLE summary_ooms")
db.close()
indexed, searched = (run("oom", p, "--json", "--summaries") for p in (oom_files["oom_mlp_snapshot_protocol2.pickle.gz"], older))
check(indexed.returncode == 0 and searched.returncode == 0 and json.loads(indexed.stdout) == {**json.loads(searched.stdout), "file": json.loads(indexed.stdout)["file"]},
      f"oom --summaries of a file without the index differs: {searched.stdout[:300]!r} {searched.stderr.strip()!r}")
r = run("oom", converted["anatomy_adam_snapshot.pickle"], "--summaries")
check(r.returncode == 0 and "no out-of-memory event" in r.stdout, f"oom of a run without one: {r.stdout!r} {r.stderr!r}")
for command in ("oom", "segments", "modules"):
    r = run(command, os.path.join(data, "oom_mlp_snapshot_protocol2.pickle.gz"), "--summaries")
    check(r.returncode == 1 and "is not a .sawtooth file" in r.stderr and "convert" in r.stderr,
          f"{command} --summaries of a snapshot: {r.stderr.strip()!r}")
r = run("oom", os.path.join(data, "oom_mlp_snapshot_protocol2.pickle.gz"), "--json")
check(r.returncode == 0 and json.loads(r.stdout)["oom_events"] >= 1, f"oom of a snapshot: exit {r.returncode}")

r = run("--help")
check(r.returncode == 0 and "Exit codes: 0 ok, 1 " in r.stdout, f"--help: exit {r.returncode}, no exit codes")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all sawtooth-trace checks passed")
