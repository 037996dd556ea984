#!/usr/bin/env python3
"""sawtooth-record under faults, as a user meets them (the real binaries, on the CPU).

Usage: check_record_faults.py SAWTOOTH_RECORD SAWTOOTH_TRACE OUT_DIR

- --out refuses an existing file unless --force, and never replaces a directory (even with --force);
- a second recorder on a file being recorded fails at once with a clear message, the first goes on;
- a recording says complete=false while it runs (info: "still being recorded"), true after a clean finish;
- SIGTERM, SIGINT and SIGHUP stop it cleanly: exit 4, incomplete_reason=interrupted;
- SIGKILL of the recorder keeps everything but the last 100 ms (median of three kills), reason killed;
- the recording process killed or crashed (SIGKILL / SIGSEGV to it): its supervisor marks the file
  (killed / crashed), prints the JSON error line and dies by the same signal;
- a full disk stops capture at the first failed write: RLIMIT_FSIZE (EFBIG, SIGXFSZ ignored) and a
  4 MiB tmpfs (ENOSPC) in a user namespace (skipped, saying why, where unprivileged mounts are not
  allowed): exit 5, a JSON error line, a file that opens with what was committed.
"""
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

record, trace_tool, out = sys.argv[1:4]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
failures = []
# A step with real work between its allocations (width 512): a width-64 net allocated as fast as a
# loop can, and on a quiet machine the writer's backlog under that flood (not what a SIGKILL loses
# of a program's allocations) decided the SIGKILL check: 30-260 ms at load 0.3, 4-34 ms at width 512.
LONG = ["--workload", "anatomy", "--device", "cpu", "--set", "steps=1000000", "--set", "width=512", "--set", "batch=8",
        "--set", "layers=2"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def path(name):
    return os.path.join(out, name)


def info(p):
    r = subprocess.run([trace_tool, "info", "--json", p], capture_output=True, text=True, timeout=120)
    if not check(r.returncode == 0, f"info {p}: {r.stderr.strip()}"):
        return None
    return json.loads(r.stdout)


def info_text(p):
    return subprocess.run([trace_tool, "info", p], capture_output=True, text=True, timeout=120).stdout


def meta(p):
    s = info(p)
    return s["meta"] if s else {}


def run(args, timeout=300, **kw):
    return subprocess.run([record, *args], capture_output=True, text=True, timeout=timeout, **kw)


def lines(stdout):
    out_lines = []
    for line in stdout.splitlines():
        try:
            out_lines.append(json.loads(line))
        except ValueError:
            pass
    return out_lines


class Running:
    """A long CPU recording, started and followed until it has recorded `steps` steps. Its output is
    read all along (a recorder whose stdout pipe is full stops at its next progress line: a test
    that stops reading measures a stalled recorder, not what a signal loses)."""

    def __init__(self, out_path, extra=(), steps=20, **popen):
        self.proc = subprocess.Popen([record, *LONG, "--out", out_path, *extra], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, **popen)
        self.start = None
        self.lines = []
        self.stderr = ""
        self._reached = threading.Event()
        self._steps = steps
        self._readers = [threading.Thread(target=self._read_stdout), threading.Thread(target=self._read_stderr)]
        for t in self._readers:
            t.start()
        self._reached.wait(120)

    def _read_stdout(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            self.lines.append(msg)
            if msg["stage"] == "start":
                self.start = msg
            if msg["stage"] == "run" and msg["step"] >= self._steps:
                self._reached.set()
        self._reached.set()

    def _read_stderr(self):
        self.stderr = self.proc.stderr.read()

    @property
    def worker(self):
        return self.start["pid"] if self.start else None

    def finish(self, timeout=120):
        self.proc.wait(timeout=timeout)
        for t in self._readers:
            t.join()
        return self.proc.returncode


def wait_for_events(p, timeout=30):
    """Until the recording's file shows committed events (read as a live view reads it)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
            try:
                if db.execute("SELECT count(*) FROM events").fetchone()[0] > 0:
                    return True
            finally:
                db.close()
        except sqlite3.Error:
            pass
        time.sleep(0.02)
    return False


def existing_paths():
    p = path("precious.sawtooth")
    with open(p, "w") as f:
        f.write("precious")
    r = run(["--workload", "anatomy", "--device", "cpu", "--out", p])
    check(r.returncode == 5 and "already exists; pass --force" in r.stderr, f"existing file: exit {r.returncode}, {r.stderr!r}")
    check(open(p).read() == "precious", "existing file: it was changed")
    err = [m for m in lines(r.stdout) if m["stage"] == "error"]
    check(err and err[0].get("kind") == "output", f"existing file: JSON error line {err}")
    r = run(["--workload", "anatomy", "--device", "cpu", "--set", "timed_steps=0", "--out", p, "--force"])
    check(r.returncode == 0, f"--force: exit {r.returncode}: {r.stderr[-300:]}")
    m = meta(p)
    check(m.get("complete") == "true" and "incomplete_reason" not in m, f"--force: complete {m.get('complete')}")

    d = path("a-directory.sawtooth")
    os.makedirs(d)
    for extra in ([], ["--force"]):
        r = run(["--workload", "anatomy", "--device", "cpu", "--out", d, *extra])
        check(r.returncode == 5 and "is a directory" in r.stderr, f"directory {extra}: exit {r.returncode}, {r.stderr!r}")
    check(os.path.isdir(d) and not os.listdir(d), "directory: it was changed")


def lock_and_live_state():
    p = path("busy.sawtooth")
    first = Running(p)
    check(first.start is not None, "lock: the first recorder did not start")
    live = meta(p)
    check(live.get("complete") == "false", f"live file: complete={live.get('complete')}")
    check("incomplete recording: still being recorded" in info_text(p), f"live info: {info_text(p)[:300]}")
    t = time.time()
    second = run([*LONG, "--out", p, "--force"], timeout=60)
    took = time.time() - t
    check(second.returncode == 5 and "is being written by another recording" in second.stderr,
          f"lock: second recorder exit {second.returncode}: {second.stderr!r}")
    check(took < 10, f"lock: the second recorder took {took:.1f} s to refuse")
    check(first.proc.poll() is None, "lock: the first recorder stopped")
    first.proc.send_signal(signal.SIGTERM)
    code = first.finish()
    check(code == 4, f"lock: first recorder exit {code}")
    s = info(p)
    check(s and s["events"] > 0 and s["meta"].get("incomplete_reason") == "interrupted",
          f"lock: first recording {s and s['meta']}")


def clean_signals():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        p = path(f"signal-{sig.name}.sawtooth")
        rec = Running(p)
        rec.proc.send_signal(sig)
        code = rec.finish()
        check(code == 4, f"{sig.name}: exit {code}: {rec.stderr[-300:]}")
        check(not os.path.exists(p + "-wal"), f"{sig.name}: the file was not closed")
        m = meta(p)
        check(m.get("complete") == "false" and m.get("incomplete_reason") == "interrupted",
              f"{sig.name}: complete {m.get('complete')} reason {m.get('incomplete_reason')}")
        check(sig.name in m.get("incomplete_detail", ""), f"{sig.name}: detail {m.get('incomplete_detail')}")
        check(any(x["stage"] == "interrupted" for x in rec.lines), f"{sig.name}: no interrupted line")
        check(f"incomplete recording: interrupted (stopped by {sig.name}" in info_text(p), f"{sig.name}: info text")


def last_event_clock_ns(p):
    db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    t0 = int(db.execute("SELECT value FROM meta WHERE key='t0_clock_ns'").fetchone()[0])
    last = db.execute("SELECT max(t_ns) FROM events").fetchone()[0]
    db.close()
    return t0 + last


def stopped(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def sigkill_gaps(round_no):
    gaps = []
    for i in range(3):
        p = path(f"killed-{round_no}-{i}.sawtooth")
        rec = Running(p, steps=200)
        time.sleep(0.5)
        os.kill(rec.worker, signal.SIGSTOP)
        while not stopped(rec.worker):
            time.sleep(0.001)
        stop_ns = time.monotonic_ns()  # the recorder stamps CLOCK_MONOTONIC, as Python's monotonic clock
        rec.proc.send_signal(signal.SIGKILL)  # the recorder as started; the recording goes with it
        rec.finish()
        s = info(p)
        check(s is not None and s["events"] > 200 * 8, f"SIGKILL: file holds {s and s['events']} events")
        m = s["meta"] if s else {}
        check(m.get("complete") == "false" and m.get("incomplete_reason") == "killed",
              f"SIGKILL: complete {m.get('complete')} reason {m.get('incomplete_reason')}")
        gaps.append((stop_ns - last_event_clock_ns(p)) / 1e6)
    gaps.sort()
    print(f"SIGKILL round {round_no}: the file ends {', '.join(f'{g:.1f}' for g in gaps)} ms before the "
          f"recording stopped (load {os.getloadavg()[0]:.1f})", flush=True)
    check(gaps[0] >= 0, f"SIGKILL: events after the recording stopped ({gaps[0]:.1f} ms)?")
    return gaps[1]


def sigkill_keeps_all_but_100ms():
    """The recording process is frozen first (SIGSTOP, and the time it is seen stopped: at or after
    it really stopped), then killed: what the file lacks before that time bounds what a SIGKILL
    loses. On a busy machine the gap also holds the stretches where the workload did not run (CI
    runs two tests at once on two cores: one round's median was 167 ms at load 1.2), so a second
    round of three is run when the first is over, and a third (CI once measured 105 and 129 ms): a
    writer that really commits less often than every 100 ms fails all three. CTest runs this test
    alone (RUN_SERIAL)."""
    medians = []
    for round_no in range(3):
        medians.append(sigkill_gaps(round_no))
        if medians[-1] <= 100:
            return
    check(False, f"SIGKILL: the median loss is above 100 ms in every round "
                 f"({', '.join(f'{m:.1f}' for m in medians)} ms)")


def worker_killed_or_crashed():
    def no_core_files():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    for sig, reason in ((signal.SIGKILL, "killed"), (signal.SIGSEGV, "crashed")):
        p = path(f"worker-{sig.name}.sawtooth")
        rec = Running(p, preexec_fn=no_core_files)
        check(rec.worker and rec.worker != rec.proc.pid, f"{sig.name}: no separate recording process in {rec.start}")
        check(wait_for_events(p), f"{sig.name}: nothing committed in 30 s")
        os.kill(rec.worker, sig)
        code = rec.finish()
        check(code == -sig, f"{sig.name}: the recorder ended with {code}, not by {sig.name}")
        err = [x for x in rec.lines if x["stage"] == "error"]
        check(err and err[-1].get("kind") == reason and err[-1].get("signal") == sig,
              f"{sig.name}: JSON error line {err}")
        s = info(p)
        m = s["meta"] if s else {}
        check(s and s["events"] > 0 and m.get("incomplete_reason") == reason, f"{sig.name}: reason {m.get('incomplete_reason')}")
        check(f"incomplete recording: {reason}" in info_text(p), f"{sig.name}: info text")
        check(not os.path.exists(p + "-wal"), f"{sig.name}: the marked file is not self-contained")


def disk_full_file_size_limit():
    p = path("fsize.sawtooth")
    limit = 3 << 20

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    t = time.time()
    r = subprocess.run([record, *LONG, "--out", p], capture_output=True, text=True, timeout=300,
                       preexec_fn=limit_file_size)
    took = time.time() - t
    check(r.returncode == 5, f"file size limit: exit {r.returncode} (stderr {r.stderr[-400:]!r})")
    err = [x for x in lines(r.stdout) if x["stage"] == "error"]
    check(err and err[-1].get("kind") == "disk_full" and "file size limit reached" in err[-1]["message"],
          f"file size limit: JSON error line {err}")
    check("file size limit reached" in r.stderr, f"file size limit: stderr {r.stderr!r}")
    steps = max([x["step"] for x in lines(r.stdout) if x["stage"] == "run"] or [0])
    check(steps < 1000000, "file size limit: the workload ran all its steps")
    s = info(p)
    m = s["meta"] if s else {}
    check(s and s["events"] > 1000, f"file size limit: file holds {s and s['events']} events")
    check(m.get("complete") == "false" and m.get("incomplete_reason") == "file size limit reached",
          f"file size limit: reason {m.get('incomplete_reason')}")
    print(f"file size limit {limit} B: stopped after {took:.1f} s at step {steps}, "
          f"{s and s['events']} events kept", flush=True)


def disk_full_tmpfs():
    mount_point = path("tmpfs")
    os.makedirs(mount_point)
    p = os.path.join(mount_point, "full.sawtooth")
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                            f"mount -t tmpfs -o size=4m tmpfs {mount_point}"], capture_output=True, text=True)
    if probe.returncode != 0:
        print(f"SKIP tmpfs (ENOSPC): cannot mount a tmpfs in a user namespace here "
              f"({(probe.stderr or probe.stdout).strip()[:200]}); the file size limit case covers the path", flush=True)
        return
    # Inside one namespace: mount, record until the disk is full, then read what is left there.
    script = (f"mount -t tmpfs -o size=4m tmpfs {mount_point} && "
              f"{record} {' '.join(LONG)} --out {p} > {mount_point}/../tmpfs.stdout 2> {mount_point}/../tmpfs.stderr; "
              f"echo exit=$?; {trace_tool} info --json {p}")
    r = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
                       capture_output=True, text=True, timeout=300)
    first, _, rest = r.stdout.partition("\n")
    check(first == "exit=5", f"tmpfs: {first} {r.stderr[-300:]}")
    rec_stdout = open(os.path.join(out, "tmpfs.stdout")).read()
    err = [x for x in lines(rec_stdout) if x["stage"] == "error"]
    check(err and err[-1].get("kind") == "disk_full" and "disk full" in err[-1]["message"], f"tmpfs: JSON error line {err}")
    try:
        s = json.loads(rest)
    except ValueError:
        check(False, f"tmpfs: the file did not open: {rest[:300]} {r.stderr[-300:]}")
        return
    check(s["events"] > 1000, f"tmpfs: file holds {s['events']} events")
    check(s["meta"].get("incomplete_reason") in ("disk full", "killed"),
          f"tmpfs: reason {s['meta'].get('incomplete_reason')}")
    print(f"tmpfs 4 MiB: {s['events']} events kept, reason {s['meta'].get('incomplete_reason')}", flush=True)


existing_paths()
lock_and_live_state()
clean_signals()
sigkill_keeps_all_but_100ms()
worker_killed_or_crashed()
disk_full_file_size_limit()
disk_full_tmpfs()

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all sawtooth-record fault checks passed")
