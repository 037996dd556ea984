#!/usr/bin/env python3
"""The data-parallel workload through the real sawtooth-record --ranks N, on the CPU (Gloo).

Usage: check_data_parallel.py SAWTOOTH_RECORD SAWTOOTH_TRACE OUT_DIR

Two ranks, small net, both variants:
  - the merged file opens with sawtooth-trace, with a run per rank (rank, world_size, backend
    recorded) and every progress line of a rank tagged with it; each rank's own file is kept;
  - every rank ends with the same parameters (max |difference| to rank 0 through the process
    group is 0; checksums equal) and sharding does not change the result;
  - per rank: parameters 4P, gradients 4P, Adam state 8P (plain) or 8P/N (sharded), exactly, in
    `info --json` and again straight from the events table with sqlite3;
  - the ranks are aligned in time: their k-th all-reduce phases overlap;
then that nothing hangs: a rank killed with SIGKILL makes the launcher stop the other and exit
non-zero within seconds; --timeout stops ranks that hang (SIGKILL when SIGTERM is not enough);
SIGTERM to the launcher stops every rank, each closing its trace; bad arguments exit 2 with a
clear message.
"""
import json
import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

record, trace_tool, out = sys.argv[1:4]
shutil.rmtree(out, ignore_errors=True)  # a recording never replaces an earlier file
os.makedirs(out)
failures = []
LAYERS, WIDTH, BATCH, RANKS = 2, 128, 16, 2
P = LAYERS * WIDTH * WIDTH
SMALL = [f"layers={LAYERS}", f"width={WIDTH}", f"batch={BATCH}", "steps=2", "timed_steps=1"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def args_for(path, variant, sets, extra=()):
    args = [record, "--workload", "data-parallel", "--device", "cpu", "--ranks", str(RANKS), "--out", path,
            "--set", f"variant={variant}", *extra]
    for s in sets:
        args += ["--set", s]
    return args


def info(path):
    r = subprocess.run([trace_tool, "info", "--json", path], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"info {path}: {r.stderr.strip()}")
    return json.loads(r.stdout) if r.returncode == 0 else None


def measurement(run, name):
    for m in run["measurements"]:
        if m["name"] == name:
            return m["value"]
    return None


def category_peaks_from_sqlite(path):
    """Per run: peak live bytes of each category, from the allocator's alloc / free_completed events."""
    db = sqlite3.connect(path)
    actions = dict(db.execute("SELECT name, id FROM action_names"))
    categories = dict(db.execute("SELECT id, name FROM category_names"))
    allocator = db.execute("SELECT id FROM source_names WHERE name='allocator'").fetchone()[0]
    sign = {actions["alloc"]: 1, actions["free_completed"]: -1}
    live, peaks = {}, {}
    for run, category, action, size in db.execute(
            "SELECT run, category, action, size FROM events WHERE source=? AND run IS NOT NULL ORDER BY seq",
            (allocator,)):
        if action not in sign:
            continue
        key = (run, categories[category])
        live[key] = live.get(key, 0) + sign[action] * size
        peaks[key] = max(peaks.get(key, 0), live[key])
    db.close()
    return peaks


def allreduce_phases_overlap(path):
    db = sqlite3.connect(path)
    by_run = {}
    for run, begin, end in db.execute("SELECT run_id, begin_ns, end_ns FROM phases WHERE name='allreduce' ORDER BY begin_ns"):
        by_run.setdefault(run, []).append((begin, end))
    db.close()
    if sorted(by_run) != list(range(RANKS)):
        return False, by_run
    steps = [list(zip(*(by_run[r][k] for r in range(RANKS)))) for k in range(min(len(v) for v in by_run.values()))]
    # The k-th all-reduce of every rank: a collective, so the ranks are inside it at one instant.
    return all(max(begins) <= min(ends) for begins, ends in steps) and len(steps) >= 3, steps[:1]


def check_modules(variant, path):
    """Each rank records its modules (issue 23): the Sequential and its Linears with their own
    parameter bytes; the flat buffers are the root's; at the peak every byte is in a module and
    the forward's activations are the layers'."""
    r = subprocess.run([trace_tool, "modules", "--json", path], capture_output=True, text=True, timeout=120)
    if not check(r.returncode == 0, f"{variant}: modules {path}: {r.stderr.strip()}"):
        return
    m = json.loads(r.stdout)
    rows = {row["name"]: row for row in m["modules"]}
    linears = [n for n, row in rows.items() if row.get("class") == "Linear"]
    check("Sequential" in rows and len(linears) == LAYERS, f"{variant}: modules {sorted(rows)}")
    check(all(rows[n]["declared_parameter_bytes"] == WIDTH * WIDTH * 4 for n in linears),
          f"{variant}: each Linear's own parameter bytes {[rows[n]['declared_parameter_bytes'] for n in linears]}")
    root = rows.get("Sequential", {})
    tops = sum(row["total"]["total"] for row in m["modules"] if row["depth"] == 0)
    check(tops == m["live_bytes"], f"{variant}: the top rows sum to the bytes live at the peak ({tops} vs {m['live_bytes']})")
    check(root.get("self", {}).get("parameter", 0) >= 4 * P, f"{variant}: the flat parameters are the root's {root.get('self')}")
    check(any(rows[n]["forward"]["calls"] > 0 for n in linears), f"{variant}: the Linears' forward calls are marked")


def record_variant(variant):
    path = os.path.join(out, f"dp-{variant}.sawtooth")
    t = time.time()
    r = subprocess.run(args_for(path, variant, SMALL), capture_output=True, text=True, timeout=300)
    print(f"data-parallel {variant} on {RANKS} ranks: exit {r.returncode} in {time.time() - t:.1f} s", flush=True)
    if not check(r.returncode == 0, f"{variant}: exit {r.returncode}: {r.stderr.strip()[-1500:]}"):
        return None
    lines = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    check(lines[0]["stage"] == "start" and lines[0]["ranks"] == RANKS and lines[0]["backend"] == "gloo",
          f"{variant}: first line {lines[0]}")
    check(lines[-1]["stage"] == "finished" and lines[-1]["exit_code"] == 0 and lines[-1]["out"] == path,
          f"{variant}: last line {lines[-1]}")
    check([l["stage"] for l in lines].count("start") == 1 and [l["stage"] for l in lines].count("finished") == 1,
          f"{variant}: one start and one finished line from the launcher")
    for rank in range(RANKS):
        mine = [l for l in lines if l.get("rank") == rank]
        check(any(l["stage"] == "run" for l in mine) and any(l["stage"] == "rank_finished" for l in mine),
              f"{variant}: progress of rank {rank}: {[l['stage'] for l in mine]}")
        rank_file = os.path.join(out, f"dp-{variant}.rank{rank}.sawtooth")
        check(os.path.exists(rank_file) and info(rank_file) is not None, f"{variant}: rank file {rank_file}")
        check_modules(variant, rank_file)

    s = info(path)
    if not s:
        return None
    names = [run["name"] for run in s["runs"]]
    check(names == [f"rank {r}" for r in range(RANKS)], f"{variant}: runs {names}")
    if len(names) != RANKS:
        return None
    checksums = []
    from_sqlite = category_peaks_from_sqlite(path)
    state_bytes = 8 * P if variant == "plain" else 8 * P // RANKS
    for rank, run in enumerate(s["runs"]):
        cfg = run["configuration"]
        check(cfg.get("rank") == str(rank) and cfg.get("world_size") == str(RANKS) and cfg.get("backend") == "gloo"
              and cfg.get("variant") == variant, f"{variant}: rank {rank} configuration {cfg}")
        diff = measurement(run, "param_max_abs_diff_vs_rank0")
        check(diff == 0.0, f"{variant}: rank {rank} parameters differ from rank 0's by {diff}")
        checksums.append(measurement(run, "param_checksum"))
        check(measurement(run, "plan_optimizer_state_bytes") == state_bytes,
              f"{variant}: rank {rank} plan_optimizer_state_bytes {measurement(run, 'plan_optimizer_state_bytes')}")
        check(measurement(run, "plan_model_state_bytes") == 8 * P + state_bytes,
              f"{variant}: rank {rank} plan_model_state_bytes {measurement(run, 'plan_model_state_bytes')}")
        peaks = [p for p in run["peaks"] if p["device"] == -1]
        if not check(len(peaks) == 1 and "category_peaks" in peaks[0], f"{variant}: rank {rank} peaks {run['peaks']}"):
            continue
        cats = peaks[0]["category_peaks"]
        for cat, want in (("parameter", 4 * P), ("gradient", 4 * P), ("optimizer_state", state_bytes),
                          ("input", 4 * BATCH * WIDTH)):
            check(cats[cat] == want, f"{variant}: rank {rank} {cat} peak {cats[cat]} != {want}")
            check(from_sqlite.get((rank, cat)) == want,
                  f"{variant}: rank {rank} {cat} peak from sqlite {from_sqlite.get((rank, cat))} != {want}")
        counted = measurement(run, "peak_allocated_bytes")
        check(counted is not None and 8 * P + state_bytes <= counted <= peaks[0]["peak_allocated_bytes"],
              f"{variant}: rank {rank} peak_allocated_bytes {counted} vs the trace's {peaks[0]['peak_allocated_bytes']}")
    check(len(set(checksums)) == 1, f"{variant}: parameter checksums differ across ranks {checksums}")
    ok, detail = allreduce_phases_overlap(path)
    check(ok, f"{variant}: the ranks' all-reduce phases do not line up in time: {detail}")
    return checksums[0]


class Launch:
    """A launcher run in the background, its progress lines read as they come."""

    def __init__(self, path, sets, extra=()):
        self.path = path
        self.proc = subprocess.Popen(args_for(path, "plain", sets, extra), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.seen = []
        self.stderr = []
        self.readers = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read(self):
        for line in self.proc.stdout:
            if line.strip():
                self.lines.put(json.loads(line))

    def wait_for(self, predicate, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen.append(line)
            if predicate(self.seen):
                return True
        return False

    def pids(self):
        return {l["rank"]: l["pid"] for l in self.seen if l["stage"] == "rank_started"}

    def finish(self, seconds):
        try:
            code = self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = None
        for reader in self.readers:
            reader.join(timeout=10)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code, "".join(self.stderr)


def both_ranks_training(seen):
    return {l.get("rank") for l in seen if l["stage"] == "run"} >= set(range(RANKS))


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


LONG = [f"layers={LAYERS}", f"width={WIDTH}", f"batch={BATCH}", "steps=1000000", "timed_steps=0"]


def start_training(name, what, extra=()):
    """Two long-running ranks, both past their first step; None (and a failed check) if they never get there."""
    launch = Launch(os.path.join(out, f"{name}.sawtooth"), LONG, extra)
    if not check(launch.wait_for(both_ranks_training, 120), f"{what}: both ranks never started training"):
        launch.proc.kill()
        return None
    return launch


def finish_timed(launch, seconds):
    t = time.time()
    code, stderr = launch.finish(seconds)
    return code, stderr, time.time() - t


def killed_rank_stops_all():
    launch = start_training("dp-killed", "kill")
    if launch is None:
        return
    pids = launch.pids()
    os.kill(pids[1], signal.SIGKILL)
    code, stderr, elapsed = finish_timed(launch, 60)
    print(f"kill rank 1: launcher exit {code} after {elapsed:.1f} s", flush=True)
    check(code not in (None, 0), f"kill: launcher exit {code}")
    check(elapsed < 20, f"kill: the launcher took {elapsed:.1f} s to stop")
    check("rank 1 was killed by signal 9" in stderr, f"kill: message {stderr.strip()[-500:]}")
    check(gone(pids[0]), "kill: rank 0 still running after the launcher exited")
    errors = [l for l in launch.seen if l["stage"] == "error"]
    check(len(errors) == 1 and errors[0].get("kind") == "rank_failed" and errors[0].get("rank") == 1,
          f"kill: the launcher's error lines {errors}")
    check(launch.seen[-1]["stage"] == "finished" and launch.seen[-1]["exit_code"] == code,
          f"kill: last line {launch.seen[-1]}")
    check(not os.path.exists(launch.path), "kill: a merged trace was written although a rank failed")
    check(info(os.path.join(out, "dp-killed.rank0.sawtooth")) is not None, "kill: rank 0's trace does not open")


def timeout_stops_hung_ranks():
    """Rank 1 frozen (SIGSTOP): rank 0 waits in its all-reduce and ignores SIGTERM there, so the
    launcher's --timeout has to end with SIGKILL."""
    launch = start_training("dp-timeout", "timeout", ["--timeout", "8"])
    if launch is None:
        return
    pids = launch.pids()
    os.kill(pids[1], signal.SIGSTOP)
    code, stderr, elapsed = finish_timed(launch, 90)
    print(f"rank 1 frozen, --timeout 8: launcher exit {code} after {elapsed:.1f} s", flush=True)
    check(code not in (None, 0), f"timeout: launcher exit {code}")
    check(elapsed < 30, f"timeout: took {elapsed:.1f} s")
    check("did not finish within 8 s" in stderr, f"timeout: message {stderr.strip()[-500:]}")
    check(all(gone(pid) for pid in pids.values()), "timeout: a rank is still there")


def sigterm_stops_every_rank():
    launch = start_training("dp-sigterm", "sigterm")
    if launch is None:
        return
    launch.proc.send_signal(signal.SIGTERM)
    code, stderr, elapsed = finish_timed(launch, 60)
    print(f"SIGTERM to the launcher: exit {code} after {elapsed:.1f} s", flush=True)
    check(code == 4, f"sigterm: launcher exit {code}: {stderr.strip()[-500:]}")
    for rank in range(RANKS):
        s = info(os.path.join(out, f"dp-sigterm.rank{rank}.sawtooth"))
        check(s is not None and s["meta"].get("result") == "interrupted",
              f"sigterm: rank {rank} trace result {s and s['meta'].get('result')}")


def bad_arguments():
    for args, needle in ((["--workload", "anatomy", "--ranks", "2", "--out", os.path.join(out, "x.sawtooth")],
                          "only distributed workloads"),
                         (["--workload", "data-parallel", "--ranks", "0", "--out", os.path.join(out, "x.sawtooth")],
                          "--ranks"),
                         (["--workload", "data-parallel", "--device", "cuda", "--ranks", "2", "--out",
                           os.path.join(out, "x.sawtooth")], "CUDA"),
                         (["--workload", "data-parallel", "--rank", "3", "--world-size", "2", "--store-port", "1",
                           "--out", os.path.join(out, "x.sawtooth")], "--world-size")):
        r = subprocess.run([record, *args], capture_output=True, text=True, timeout=60)
        if "--device" in args and r.returncode == 0:
            continue  # a machine with a GPU would run it
        check(r.returncode == 2 and needle in r.stderr, f"{args}: exit {r.returncode}: {r.stderr.strip()}")


def leftovers():
    mine = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
        except OSError:
            continue
        argv = cmdline.split("\0")
        if os.path.basename(argv[0]) == "sawtooth-record" and out in cmdline:
            mine.append(f"{pid}: {' '.join(argv)}")
    return mine


plain = record_variant("plain")
sharded = record_variant("sharded")
if plain is not None and sharded is not None:
    check(abs(plain - sharded) <= 1e-5 * max(1.0, abs(plain)),
          f"sharding changed the trained parameters: checksum {plain} vs {sharded}")
killed_rank_stops_all()
timeout_stops_hung_ranks()
sigterm_stops_every_rank()
bad_arguments()
left = leftovers()
check(not left, f"processes left running: {left}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("data-parallel: all checks passed")
