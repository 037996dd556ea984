#!/usr/bin/env python3
"""The real sawtooth-record binary, end to end.

Usage: check_sawtooth_record.py SAWTOOTH_RECORD SAWTOOTH_TRACE OUT_DIR cpu|gpu

cpu: every workload at CPU scale; the file opens with the core reader (sawtooth-trace); phases in
     order; categories sum exactly (parameters 4P, gradients 4P, Adam state 8P at two sizes);
     checkpointed peak < store-all with equal gradients; accumulation difference <= 1e-6; a core
     left to the capture (meta cpu_threads); bad arguments give a clear message and exit 2.
     (Signals, kills and full disks: check_record_faults.py; windows: check_record_windows.py.)
gpu: the same workloads small on CUDA, plus allocated <= reserved <= driver <= device used at
     every sample, an out-of-memory run, and C++ stacks. Exits 77 (skipped) without a GPU.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

record, trace_tool, out, mode = sys.argv[1:5]
shutil.rmtree(out, ignore_errors=True)  # a recording never replaces an earlier file
os.makedirs(out)
failures = []
SKIP = 77


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def run(args, timeout=600):
    return subprocess.run([record, *args], capture_output=True, text=True, timeout=timeout)


def info(path):
    r = subprocess.run([trace_tool, "info", "--json", path], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"info {path}: {r.stderr.strip()}")
    return json.loads(r.stdout) if r.returncode == 0 else None


def progress_lines(stdout):
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return lines


recordings = 0


def record_workload(name, device, sets=(), extra=()):
    global recordings
    recordings += 1
    path = os.path.join(out, f"{name}-{device}-{recordings}.sawtooth")
    args = ["--workload", name, "--device", device, "--out", path, *extra]
    for s in sets:
        args += ["--set", s]
    t = time.time()
    r = run(args)
    print(f"{name} on {device} {' '.join(sets)}: exit {r.returncode} in {time.time() - t:.1f} s", flush=True)
    check(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr.strip()[:500]}")
    lines = progress_lines(r.stdout)
    check(lines and lines[0]["stage"] == "start" and lines[-1]["stage"] == "finished", f"{name}: progress stream")
    for line in lines:
        if line["stage"] == "run":
            check({"run", "step", "steps", "fraction", "message"} <= set(line), f"{name}: progress fields {line}")
            check(0 <= line["fraction"] <= 1, f"{name}: fraction {line['fraction']}")
    summary = info(path)
    if summary and device == "cpu":
        # PyTorch's intra-op threads leave a core to the capture (and the app watching it): with one
        # per core, a preempted thread stalled every parallel op and step times spread 5-100x.
        cores = len(os.sched_getaffinity(0))
        want = os.environ.get("OMP_NUM_THREADS") or str(max(1, cores - 1))
        check(summary["meta"].get("cpu_threads") == want,
              f"{name}: cpu_threads {summary['meta'].get('cpu_threads')!r}, expected {want} of {cores} cores")
    return path, summary


def measurement(run_json, name):
    for m in run_json["measurements"]:
        if m["name"] == name:
            return m["value"]
    return None


def run_by_name(summary, name):
    for r in summary["runs"]:
        if r["name"] == name:
            return r
    return None


def phases_in_order(path):
    db = sqlite3.connect(path)
    rows = db.execute("SELECT name, begin_ns, end_ns FROM phases WHERE name IN "
                      "('zero_grad','forward','backward','optimizer') ORDER BY begin_ns").fetchall()
    db.close()
    names = [r[0] for r in rows]
    ok = all(b <= e for _, b, e in rows)
    # Every step is zero_grad, forward, backward, optimizer, in that order.
    for i in range(0, len(names) - 3, 4):
        ok = ok and names[i:i + 4] == ["zero_grad", "forward", "backward", "optimizer"]
    return ok, names


def anatomy_categories(device, layers, width, batch, exact):
    path, s = record_workload("anatomy", device, [f"layers={layers}", f"width={width}", f"batch={batch}",
                                                  "steps=3", "timed_steps=2"])
    if not s:
        return
    ok, names = phases_in_order(path)
    check(ok and names[:4] == ["zero_grad", "forward", "backward", "optimizer"], f"anatomy phases {names[:8]}")
    P = layers * width * width
    dev = [d for d in s["devices"] if d["device"] == (-1 if device == "cpu" else 0)][0]
    cats = dev["category_peaks"]
    for cat, bytes_ in (("parameter", 4 * P), ("gradient", 4 * P), ("optimizer_state", 8 * P), ("input", 4 * batch * width)):
        if exact:
            check(cats[cat] == bytes_, f"anatomy {width}: {cat} peak {cats[cat]} != {bytes_}")
        else:
            check(abs(cats[cat] - bytes_) <= 512 * layers * 2, f"anatomy {width}: {cat} peak {cats[cat]} vs {bytes_}")
    check(cats["activation"] >= 4 * layers * batch * width, f"anatomy: activations {cats['activation']}")
    adam = run_by_name(s, "adam")
    check(adam is not None and measurement(adam, "plan_total_bytes") > 0, "anatomy: plan stored")
    check(measurement(adam, "peak_allocated_bytes") == dev["peak_allocated_bytes"],
          f"anatomy: run peak {measurement(adam, 'peak_allocated_bytes')} != trace peak {dev['peak_allocated_bytes']}")
    anatomy_modules(path, layers, width, dev)
    return s


def anatomy_modules(path, layers, width, dev):
    """The workload's own modules (issue 23): the rows' own bytes sum to the peak; there each Linear
    holds its weight to the byte, and every gradient and optimizer state byte alive is a module's
    (the workload frees everything at its end, so the peak is where they are seen)."""
    r = subprocess.run([trace_tool, "modules", path, "--json"], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"anatomy modules: {r.stderr.strip()}")
    if r.returncode != 0:
        return
    peak = json.loads(r.stdout)
    own = sum(row["self"]["total"] for row in peak["modules"])
    check(own == peak["live_bytes"] == dev["peak_allocated_bytes"],
          f"anatomy modules: rows {own}, live {peak['live_bytes']}, peak {dev['peak_allocated_bytes']}")
    rows = {row["name"]: row for row in peak["modules"]}
    weight = 4 * width * width
    for i in range(layers):
        row = rows.get(f"Sequential.{2 * i}")
        check(row is not None and row["class"] == "Linear", f"anatomy modules: Sequential.{2 * i} ({sorted(rows)[:6]})")
        if row is not None:
            check((row["declared_parameter_bytes"], row["self"].get("parameter")) == (weight, weight),
                  f"anatomy modules: Sequential.{2 * i} holds {row['self']}")
    outside = rows.get("(outside modules)", {}).get("self", {})
    check(not outside.get("parameter") and not outside.get("gradient") and not outside.get("optimizer_state"),
          f"anatomy modules: parameters, gradients and optimizer state outside modules: {outside}")


def checkpointing(device, sets):
    path, s = record_workload("checkpointing", device, sets)
    if not s:
        return
    peaks = {r["name"]: measurement(r, "peak_allocated_bytes") for r in s["runs"]}
    diffs = {r["name"]: measurement(r, "grad_max_abs_diff_vs_store_all") for r in s["runs"]}
    check(list(peaks) == ["store_all", "every_4th_reentrant", "every_4th", "every_2nd_reentrant", "every_2nd",
                          "every_block_reentrant", "every_block"], f"checkpointing runs {list(peaks)}")
    check(peaks["every_block"] < peaks["every_2nd"] < peaks["store_all"], f"checkpointing peaks {peaks}")
    # The non-reentrant form (the seed's) never materialises a recomputed block's last matmul.
    for every in ("every_2nd", "every_block"):
        check(peaks[every] < peaks[every + "_reentrant"], f"checkpointing {every}: non-reentrant peak not below reentrant")
    check(all(d <= 1e-6 for d in diffs.values()), f"checkpointing gradient differences {diffs}")
    db = sqlite3.connect(path)
    recompute = db.execute("SELECT count(*) FROM phases WHERE name='recompute'").fetchone()[0]
    db.close()
    check(recompute > 0, "checkpointing: no recompute phases")
    return s


def accumulation(device, sets=()):
    _, s = record_workload("accumulation", device, list(sets))
    if not s:
        return
    diff = measurement(run_by_name(s, "exact_check"), "max_grad_diff")
    check(diff is not None and diff <= 1e-6, f"accumulation: max gradient difference {diff}")
    peaks = [measurement(run_by_name(s, f"k={k}"), "peak_allocated_bytes") for k in (1, 2, 4, 8)]
    check(peaks[0] > peaks[3], f"accumulation: k=1 peak {peaks[0]} not above k=8 peak {peaks[3]}")
    return s


def precision(device, sets=()):
    _, s = record_workload("precision", device, list(sets))
    if not s:
        return
    names = [r["name"] for r in s["runs"]]
    check(names == ["fp32", "tf32", "bf16", "fp16"], f"precision runs {names}")
    for r in s["runs"]:
        check(measurement(r, "step_time_median_ms") > 0, f"precision {r['name']}: no step time")
        check(r["configuration"].get("float32_matmul_precision") in ("highest", "high"), "precision setting recorded")
    return s


def bad_arguments():
    cases = [(["--workload", "nope", "--out", "x.sawtooth"], "no workload 'nope'"),
             (["--workload", "anatomy"], "--out"),
             (["--workload", "anatomy", "--set", "width=abc", "--out", "x.sawtooth"], "width=abc: not a whole number"),
             (["--workload", "anatomy", "--set", "depth=3", "--out", "x.sawtooth"], "no parameter 'depth'"),
             (["--workload", "anatomy", "--set", "optimizer=lamb", "--out", "x.sawtooth"], "choose one of adam, adamw, sgd"),
             (["--workload", "anatomy", "--set", "width=0", "--out", "x.sawtooth"], "must be between"),
             ([], "choose a workload")]
    if not json.loads(run(["--list", "--json"], timeout=60).stdout)["cuda_available"]:
        cases.append((["--workload", "anatomy", "--device", "cuda", "--out", "x.sawtooth"], "no CUDA device"))
    # Command-line parse errors: exit 2 as well, not CLI11's own codes (1xx).
    cases += [(["--no-such-option"], "--no-such-option"), (["--device", "gpu"], "gpu"), (["--ranks", "two"], "two")]
    for args, needle in cases:
        r = run(args, timeout=60)
        check(r.returncode == 2 and needle in r.stderr, f"bad arguments {args}: exit {r.returncode}, {r.stderr.strip()!r}")
    r = run(["--help"], timeout=60)
    check(r.returncode == 0 and "Exit codes: 0 ok, 1 " in r.stdout, f"--help: exit {r.returncode}, no exit codes")
    r = run(["--list", "--json"], timeout=60)
    listing = json.loads(r.stdout)
    check([w["name"] for w in listing["workloads"]] == ["anatomy", "precision", "checkpointing", "accumulation",
                                                         "data-parallel"], "--list --json names")


def memory_order(summary, name):
    dev = [d for d in summary["devices"] if d["device"] == 0][0]
    order = dev.get("memory_order", {})
    check(order.get("samples_checked", 0) > 0, f"{name}: no device samples checked")
    check(order.get("violations", 1) == 0, f"{name}: memory order violated: {order.get('first_violation')}")
    check("driver" in dev["series_peaks"] and "device_used" in dev["series_peaks"], f"{name}: driver/device-used missing")


def gpu_tests():
    listing = json.loads(run(["--list", "--json"], timeout=120).stdout)
    if not listing["cuda_available"]:
        print("SKIP: no CUDA device on this machine; the GPU checks run on the GPU machine (bench/results/).")
        sys.exit(SKIP)
    s = anatomy_categories("cuda", 4, 256, 64, exact=True)
    if s:
        memory_order(s, "anatomy")
    for name, summary in (("checkpointing", checkpointing("cuda", ["blocks=4", "width=256", "rows=1024"])),
                          ("accumulation", accumulation("cuda", ["big_in=256", "big_hidden=512", "global_batch=8192"])),
                          ("precision", precision("cuda", ["hidden=1024", "batch=256", "steps=5"]))):
        if summary:
            memory_order(summary, name)
    # Out of memory: recorded as an oom event, reported, exit 3, file closed.
    path = os.path.join(out, "oom.sawtooth")
    # 16 GB of weights fit; a 256 GB input does not.
    r = run(["--workload", "anatomy", "--set", "batch=1048576", "--set", "width=65536", "--set", "layers=1",
             "--out", path])
    check(r.returncode == 3, f"oom: exit {r.returncode} {r.stderr[-300:]}")
    open(os.path.join(out, "oom.progress.jsonl"), "w").write(r.stdout + "\n" + r.stderr)
    s = info(path)
    if s:
        cuda = [d for d in s["devices"] if d["device"] == 0]
        check(cuda and cuda[0]["oom_events"] >= 1, f"oom: no oom event in the trace ({s['actions']}, {r.stderr[-300:]})")
        check(s["meta"].get("result") == "out_of_memory" and "oom.allocated_bytes" in s["meta"], "oom: state not recorded")
        # 16 GiB of weights were alive when the 256 GiB input failed (the observer's figures: the
        # request, the allocator's own count then, and the limit it may use).
        meta = s["meta"]
        check(int(meta.get("oom.requested_bytes", 0)) >= 256 << 30, f"oom: asked for {meta.get('oom.requested_bytes')}")
        check(16 << 30 <= int(meta.get("oom.allocated_bytes", 0)) < 256 << 30,
              f"oom: allocated at the failure {meta.get('oom.allocated_bytes')}")
        check(int(meta.get("oom.device_limit_bytes", 0)) >= 100 << 30, f"oom: limit {meta.get('oom.device_limit_bytes')}")
    # C++ stacks, and PyTorch's own snapshot beside the trace.
    path, s = record_workload("anatomy", "cuda", ["layers=2", "width=256", "batch=32", "steps=2", "timed_steps=0"],
                              extra=["--stacks", "cpp"])
    if s:
        check(s["stacks"] > 0, "stacks: no stacks recorded")
        snap = info(path + ".snapshot.pickle")
        check(snap is not None and snap["events"] > 0, "stacks: snapshot pickle unreadable")


if mode == "gpu":
    gpu_tests()
else:
    bad_arguments()
    anatomy_categories("cpu", 4, 256, 32, exact=True)
    anatomy_categories("cpu", 3, 100, 7, exact=True)
    checkpointing("cpu", [])
    accumulation("cpu")
    precision("cpu")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print(f"all sawtooth-record {mode} checks passed")
