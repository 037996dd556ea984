#!/usr/bin/env python3
"""sawtooth-record -- COMMAND, end to end, through the real binary and a real PyTorch (CPU).

Usage: check_program_recording.py SAWTOOTH_RECORD SAWTOOTH_TRACE PYTHON OUT_DIR [--only CASE,... [--repeat N]]

--only runs the named cases (the functions below, e.g. stop_busy, ctrl_c_in_terminal) N times each:
how their stability is shown under a parallel load (bench/capture/e2e_stability.sh).

PYTHON is the torch venv's interpreter (scripts/torch-venv-path.sh). Each case runs an unmodified
training script under the recorder and checks what a user relies on: the program's stdin, stdout,
stderr and exit status pass through; the trace holds its CPU allocations with parameters,
gradients and Adam state equal to 4P, 4P and 8P, inputs, activations, phases in order and its
record_function range; a program that exits non-zero, crashes, is killed, is stopped through
the recorder or by Ctrl+C at a terminal still leaves a readable trace that says honestly whether
it is complete; torchrun with two Gloo ranks is merged into one trace with a run per rank; a
sitecustomize of the program's own still runs; bad commands get the shell's exit codes.
"""
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recording_checks import check, failures, finish, remove_recording, start, write  # noqa: E402

record, trace_tool, python, out = sys.argv[1:5]
start(out, python)
LAYERS, WIDTH, BATCH = 3, 64, 16
P = LAYERS * WIDTH * WIDTH  # parameters

TRAIN = textwrap.dedent(f"""
    import os, sys, time
    import torch
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    torch.manual_seed(0)
    layers = []
    for _ in range({LAYERS}):
        layers += [torch.nn.Linear({WIDTH}, {WIDTH}, bias=False), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    print("training", flush=True)
    line = sys.stdin.readline().strip() if mode == "stdin" else ""
    if line:
        print("read:" + line, flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    steps = 10**9 if mode in ("endless", "busy") else 8 if mode == "eight" else 3
    profiling = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True,
                                       record_shapes=True, with_stack=True) if mode == "profile" else None
    if profiling:
        profiling.__enter__()
    for step in range(steps):
        opt.zero_grad()
        x = torch.randn({BATCH}, {WIDTH})
        with torch.autograd.profiler.record_function("my_block"):
            loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        if mode in ("abort", "endless", "sigkill"):
            time.sleep(0.3)  # the shim delivers at step boundaries, at most every 200 ms
        if mode == "abort" and step == 1:
            os.abort()
        if mode in ("endless", "busy") and step == 2:
            print("steady", flush=True)
    if profiling:
        profiling.__exit__(None, None, None)
        profiling.export_memory_timeline(sys.argv[2], device="cpu")
    print("done", flush=True)
    sys.exit(3 if mode == "exit3" else 0)
""")

DDP = textwrap.dedent(f"""
    import os
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear({WIDTH}, {WIDTH}, bias=False), torch.nn.ReLU(), torch.nn.Linear({WIDTH}, {WIDTH}, bias=False)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        opt.zero_grad()
        model(torch.randn({BATCH}, {WIDTH})).pow(2).mean().backward()
        opt.step()
    print(f"rank {{dist.get_rank()}} done", flush=True)  # one write: the ranks share stdout
    dist.destroy_process_group()
""")


def recorder(trace, command, stdin=None, extra=(), timeout=300, env=None):
    progress = trace + ".progress.jsonl"
    remove_recording(trace, (".progress.jsonl",))
    args = [record, "--out", trace, "--progress", progress, *extra, "--", *command]
    t = time.time()
    r = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=timeout, env=env)
    print(f"{' '.join(command[-2:])}: exit {r.returncode} in {time.time() - t:.1f} s", flush=True)
    return r


def info(path):
    r = subprocess.run([trace_tool, "info", "--json", path], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"info {path}: {r.stderr.strip()}")
    return json.loads(r.stdout) if r.returncode == 0 else None


def meta(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    m = dict(db.execute("SELECT key, value FROM meta").fetchall())
    phases = [r[0] for r in db.execute("SELECT name FROM phases WHERE kind='phase' ORDER BY begin_ns").fetchall()]
    annotations = [r[0] for r in db.execute("SELECT name FROM phases WHERE kind='annotation'").fetchall()]
    db.close()
    return m, phases, annotations


def progress_lines(trace):
    with open(trace + ".progress.jsonl") as f:
        return [json.loads(line) for line in f if line.strip()]


def cpu_device(summary):
    devices = [d for d in summary["devices"] if d["device"] in (-1, "cpu")]
    return devices[0] if devices else None


def near(value, expected, slack):
    return value is not None and abs(value - expected) <= slack


def training_checks(trace, label, steps=3):
    s = info(trace)
    if not s:
        return None
    m, phases, annotations = meta(trace)
    dev = cpu_device(s)
    if not check(dev is not None, f"{label}: no CPU device in the trace ({[d['device'] for d in s['devices']]})"):
        return s
    cats = dev.get("category_peaks", {})
    # Adam's step counters are 4-byte CPU tensors: optimizer state is 8P plus one per parameter.
    slack = 64 * LAYERS
    check(near(cats.get("parameter"), 4 * P, slack), f"{label}: parameters {cats.get('parameter')} != 4P = {4 * P}")
    check(near(cats.get("gradient"), 4 * P, slack), f"{label}: gradients {cats.get('gradient')} != 4P = {4 * P}")
    check(near(cats.get("optimizer_state"), 8 * P, slack),
          f"{label}: optimizer state {cats.get('optimizer_state')} != 8P = {8 * P}")
    # A step's input is made while the previous step's is still referenced (x = ... reassigns it).
    check(4 * BATCH * WIDTH <= (cats.get("input") or 0) <= 8 * BATCH * WIDTH,
          f"{label}: inputs {cats.get('input')}, expected one or two of {4 * BATCH * WIDTH} bytes")
    check((cats.get("activation") or 0) >= 4 * BATCH * WIDTH * LAYERS,
          f"{label}: activations {cats.get('activation')} below {4 * BATCH * WIDTH * LAYERS}")
    one_step = ["zero_grad", "forward", "backward", "optimizer"]
    check(phases[:4 * steps] == one_step * steps, f"{label}: phases {phases[:12]}")
    check(annotations.count("my_block") >= steps, f"{label}: record_function ranges {set(annotations)}")
    check(len(s["runs"]) >= 1 and "train.py" in s["runs"][0]["name"], f"{label}: run name {s['runs'][:1]}")
    check(m.get("torch_version", "").startswith("2."), f"{label}: torch version {m.get('torch_version')}")
    check(m.get("workload") == "program" and "train.py" in m.get("command", ""), f"{label}: command meta")
    return s


def ok_run():
    train = os.path.join(out, "train.py")
    trace = os.path.join(out, "train.sawtooth")
    r = recorder(trace, [python, train, "stdin"], stdin="hello there\n", extra=("--modules", "on"))
    check(r.returncode == 0, f"ok: exit {r.returncode}: {r.stderr[-800:]}")
    check(r.stdout == "training\nread:hello there\ndone\n", f"ok: stdout passed through as {r.stdout!r}")
    check("to stderr" in r.stderr, "ok: the program's stderr")
    check(not os.path.exists(trace + "-wal"), "ok: the file is closed")
    s = training_checks(trace, "ok")
    m, _, _ = meta(trace)
    check(m.get("complete") == "true", f"ok: complete {m.get('complete')} {m.get('incomplete_reason')}")
    check(m.get("program.exit") == "exit 0", f"ok: program.exit {m.get('program.exit')}")
    check(m.get("capture.late_records") == "0", f"ok: {m.get('capture.late_records')} records arrived out of order")
    stages = [line["stage"] for line in progress_lines(trace)]
    check(stages[0] == "start" and stages[-1] == "finished" and "recording" in stages and "program_exit" in stages,
          f"ok: progress stages {stages}")
    finished = progress_lines(trace)[-1]
    check(finished.get("out") == trace and finished.get("exit_code") == 0, f"ok: finished line {finished}")
    return s


def beside_profiler(ours):
    """The same script under torch.profiler's memory timeline (profile_memory, the categories PyTorch
    itself infers), unrecorded, against our recording's categories: the model state must agree."""
    timeline = os.path.join(out, "train.memory_timeline.raw.json.gz")
    r = subprocess.run([python, os.path.join(out, "train.py"), "profile", timeline], capture_output=True, text=True,
                       timeout=300)
    if not check(r.returncode == 0 and os.path.exists(timeline), f"profiler: exit {r.returncode}: {r.stderr[-600:]}"):
        return
    theirs = info(timeline)
    ours_dev, theirs_dev = cpu_device(ours) if ours else None, theirs["devices"][0] if theirs else None
    if not check(ours_dev is not None and theirs_dev is not None, "profiler: no device to compare"):
        return
    a, b = ours_dev["category_peaks"], theirs_dev["category_peaks"]
    print("category peaks, ours | torch.profiler's memory timeline:")
    for k in sorted(set(a) | set(b)):
        print(f"  {k:16s} {a.get(k, 0):>9} | {b.get(k, 0):>9}")
    print(f"  {'peak (all)':16s} {ours_dev['peak_allocated_bytes']:>9} | {theirs_dev['peak_allocated_bytes']:>9}")
    for k in ("gradient", "optimizer_state"):
        check(a.get(k) == b.get(k), f"profiler: {k} {a.get(k)} (ours) != {b.get(k)} (torch.profiler)")
    check(near(ours_dev["peak_allocated_bytes"], theirs_dev["peak_allocated_bytes"], 4 * BATCH * WIDTH),
          f"profiler: peaks {ours_dev['peak_allocated_bytes']} (ours) and {theirs_dev['peak_allocated_bytes']}")


def native_and_portable(native):
    """The CPU's two paths (issue 27): the tracker library's reporter (the default, --shim native)
    and the profiler's memory events (--shim portable) record the same bytes; the native one gives
    each allocation its Python stack and module, and the file says which path ran."""
    if native is None:
        return
    trace = os.path.join(out, "portable.sawtooth")
    # --cpu on: on a machine with an NVIDIA driver the profiler's path does not start by itself.
    r = recorder(trace, [python, os.path.join(out, "train.py")], extra=("--shim", "portable", "--cpu", "on"))
    check(r.returncode == 0, f"portable: exit {r.returncode}: {r.stderr[-800:]}")
    portable = training_checks(trace, "portable")
    m_native, _, _ = meta(os.path.join(out, "train.sawtooth"))
    m_portable, _, _ = meta(trace)
    check(m_native.get("shim_mode") == "native" and m_native.get("stacks") == "python",
          f"native: shim_mode={m_native.get('shim_mode')!r} stacks={m_native.get('stacks')!r}")
    check(m_portable.get("shim_mode") == "cpu" and m_portable.get("stacks") == "none",
          f"portable: shim_mode={m_portable.get('shim_mode')!r} stacks={m_portable.get('stacks')!r}")
    a, b = cpu_device(native), cpu_device(portable) if portable else None
    if not check(a is not None and b is not None, "native and portable: a CPU device each"):
        return
    for k in ("parameter", "gradient", "optimizer_state"):
        check(a["category_peaks"].get(k) == b["category_peaks"].get(k),
              f"native and portable: {k} {a['category_peaks'].get(k)} != {b['category_peaks'].get(k)}")
    check(near(a["peak_allocated_bytes"], b["peak_allocated_bytes"], 4 * BATCH * WIDTH),
          f"native and portable: peaks {a['peak_allocated_bytes']} and {b['peak_allocated_bytes']}")
    db = sqlite3.connect(f"file:{os.path.join(out, 'train.sawtooth')}?mode=ro", uri=True)
    allocs, with_stack, in_train, with_module = db.execute(
        "SELECT COUNT(*), COUNT(e.stack), "
        "(SELECT COUNT(DISTINCT s.stack_id) FROM stacks s JOIN frames f ON f.id = s.frame_id WHERE f.file LIKE "
        "'%train.py'), COUNT(e.module) FROM events e WHERE e.device = -1 AND e.action = 0").fetchone()
    modules = [r[0] for r in db.execute("SELECT DISTINCT m.name FROM events e JOIN modules m ON m.id = e.module "
                                        "WHERE e.device = -1")]
    db.close()
    print(f"native CPU allocations: {allocs}, {with_stack} with a stack, {in_train} stacks in train.py, "
          f"{with_module} with a module; modules {sorted(modules)[:6]}")
    check(allocs > 0 and with_stack >= allocs // 2 and in_train > 0,
          f"native: {with_stack} of {allocs} CPU allocations have a stack ({in_train} stacks in train.py)")
    check(with_module > 0 and len(modules) > 1, f"native: {with_module} CPU allocations in modules {modules}")


def windows_run():
    """--steps A:B keeps the optimizer steps A to B-1 with what was alive at A as the baseline;
    --window-events N the last N events; bad windows are refused before the program runs."""
    train = os.path.join(out, "train.py")
    trace = os.path.join(out, "steps.sawtooth")
    r = recorder(trace, [python, train, "eight"], extra=["--steps", "2:5"])
    check(r.returncode == 0, f"steps: exit {r.returncode}: {r.stderr[-800:]}")
    check("`--modules on` records" in r.stderr, f"steps: no word of module tracking in {r.stderr[-800:]}")
    m, phases, annotations = meta(trace)
    check(m.get("window.steps") == "2:5" and m.get("complete") == "true", f"steps: meta {m.get('window.steps')}")
    check(phases == ["zero_grad", "forward", "backward", "optimizer"] * 3, f"steps: phases {phases}")
    check(annotations.count("my_block") == 3, f"steps: record_function ranges {annotations}")
    db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
    baseline = db.execute("SELECT baseline_allocated FROM devices WHERE device = -1").fetchone()
    first_t = db.execute("SELECT min(t_ns) FROM events").fetchone()[0]
    tracked = db.execute("SELECT COUNT(*) FROM modules").fetchone()[0]
    db.close()
    # Module tracking is off unless asked for (issue 23's budget): no module tree, and the file says why.
    check(m.get("modules") == "off" and tracked == 0, f"steps: modules {m.get('modules')!r}, {tracked} in the tree")
    # When step 2 begins the parameters (4P bytes), their gradients (4P) and Adam's state (8P) are
    # alive, and the last step's input (x is reassigned only in the next step).
    check(baseline is not None and 16 * P <= baseline[0] <= 16 * P + 64 * LAYERS + 4 * BATCH * WIDTH,
          f"steps: baseline {baseline}, expected 16P = {16 * P} bytes")
    check(first_t is not None and first_t >= int(m.get("window.start_ns", 0)), "steps: an event before the window")

    trace = os.path.join(out, "last.sawtooth")
    r = recorder(trace, [python, train, "eight"], extra=["--window-events", "100"])
    check(r.returncode == 0, f"window-events: exit {r.returncode}: {r.stderr[-800:]}")
    m, _, _ = meta(trace)
    db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
    events = db.execute("SELECT count(*) FROM events").fetchone()[0]
    db.close()
    check(events == 100 and int(m.get("window.events_discarded", 0)) > 0,
          f"window-events: {events} events kept, {m.get('window.events_discarded')} discarded")
    s = info(trace)
    dev = cpu_device(s) if s else None
    check(dev is not None and near(dev.get("final_allocated_bytes"), 16 * P, 64 * LAYERS + 4 * BATCH * WIDTH * 8),
          f"window-events: final allocated {dev and dev.get('final_allocated_bytes')}, expected about 16P")

    for option, value in (("--steps", "5:2"), ("--window-events", "0x")):
        r = recorder(os.path.join(out, "bad-window.sawtooth"), [python, train], extra=[option, value])
        check(r.returncode == 125 and option in r.stderr, f"{option} {value}: exit {r.returncode}, {r.stderr.strip()}")


def exit_code_run():
    trace = os.path.join(out, "exit3.sawtooth")
    r = recorder(trace, [python, os.path.join(out, "train.py"), "exit3"])
    check(r.returncode == 3, f"exit3: exit {r.returncode}")
    training_checks(trace, "exit3")
    m, _, _ = meta(trace)
    check(m.get("complete") == "true" and m.get("program.exit") == "exit 3", f"exit3: meta {m.get('program.exit')}")


def abort_run():
    trace = os.path.join(out, "abort.sawtooth")
    r = recorder(trace, [python, os.path.join(out, "train.py"), "abort"])
    check(r.returncode == 128 + signal.SIGABRT, f"abort: exit {r.returncode}")
    s = info(trace)
    m, phases, _ = meta(trace)
    check(m.get("complete") == "false", f"abort: complete {m.get('complete')}")
    check(m.get("incomplete_reason") == "crashed" and "signal 6" in m.get("incomplete_detail", ""),
          f"abort: reason {m.get('incomplete_reason')} ({m.get('incomplete_detail')})")
    check(s is not None and s["events"] > 0 and phases[:4] == ["zero_grad", "forward", "backward", "optimizer"],
          f"abort: what was delivered before the crash ({s and s['events']} events, phases {phases[:4]})")


def wait_for(proc, text, timeout=120):
    deadline = time.time() + timeout
    seen = ""
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen += line
        if text in line:
            return True
    return False


def stop_through_recorder(mode="endless"):
    """The app's Stop: SIGTERM to the recorder is passed on; the program delivers and dies by it.
    mode "busy" never sleeps, so the signal often lands while the shim is half-way through a send
    (it used to deadlock on the channel's lock there, about one stop in two)."""
    trace = os.path.join(out, f"stopped-{mode}.sawtooth")
    remove_recording(trace)
    proc = subprocess.Popen([record, "--out", trace, "--", python, os.path.join(out, "train.py"), mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(wait_for(proc, "steady"), "stop: the program never got going")
    if mode == "busy":
        time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    check(proc.returncode == 128 + signal.SIGTERM, f"stop ({mode}): exit {proc.returncode}: {err[-500:]}")
    check("passed Terminated on to the program" in err, f"stop: the recorder said nothing of the signal: {err[-300:]}")
    m, phases, _ = meta(trace)
    check(m.get("complete") == "true", f"stop: the program delivered before dying: {m.get('incomplete_reason')}")
    check(m.get("program.end.shim") == "killed by SIGTERM", f"stop: end {m.get('program.end.shim')}")
    check(phases.count("optimizer") >= 3, f"stop: {phases.count('optimizer')} steps recorded")


def ctrl_c_in_terminal():
    """Ctrl+C at a terminal: the tty sends SIGINT to the foreground group (recorder and program);
    the program's KeyboardInterrupt ends it, its last delivery goes out, the recorder passes
    nothing on (the program got it already) and exits as the program did."""
    import fcntl
    import pty
    import termios
    trace = os.path.join(out, "ctrl_c.sawtooth")
    remove_recording(trace)
    master, slave = pty.openpty()

    def controlling_terminal():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen([record, "--out", trace, "--", python, os.path.join(out, "train.py"), "endless"],
                            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=controlling_terminal)
    os.close(slave)
    check(wait_for(proc, "steady"), "ctrl+c: the program never got going")
    os.write(master, b"\x03")  # the terminal's interrupt character
    _, err = proc.communicate(timeout=120)
    os.close(master)
    # As the program ends unrecorded: by SIGINT (130), or with 1 where a KeyboardInterrupt after
    # autograd has run does not (Python 3.12 with torch 2.11 on the H200, unrecorded too).
    plain = subprocess.Popen([python, os.path.join(out, "train.py"), "endless"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    expected = None
    if check(wait_for(plain, "steady"), "ctrl+c: the program never got going unrecorded"):
        plain.send_signal(signal.SIGINT)
        plain.communicate(timeout=120)
        expected = 128 + signal.SIGINT if plain.returncode == -signal.SIGINT else plain.returncode
    check(proc.returncode == expected, f"ctrl+c: exit {proc.returncode}, unrecorded {expected}: {err[-500:]}")
    check("KeyboardInterrupt" in err, f"ctrl+c: the program's traceback passed through: {err[-300:]}")
    check("passed Interrupt on" not in err, "ctrl+c: the recorder sent the program a second SIGINT")
    m, phases, _ = meta(trace)
    check(m.get("complete") == "true", f"ctrl+c: complete {m.get('complete')} {m.get('incomplete_reason')}")
    check(m.get("program.end.shim") == "interrupted (SIGINT)", f"ctrl+c: end {m.get('program.end.shim')}")
    check(phases.count("optimizer") >= 3, f"ctrl+c: {phases.count('optimizer')} steps recorded")


def sigkill_program():
    trace = os.path.join(out, "sigkill.sawtooth")
    progress = trace + ".progress.jsonl"
    remove_recording(trace, (".progress.jsonl",))
    proc = subprocess.Popen([record, "--out", trace, "--progress", progress, "--", python,
                             os.path.join(out, "train.py"), "endless"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(wait_for(proc, "steady"), "sigkill: the program never got going")
    pid = [line["pid"] for line in progress_lines(trace) if line["stage"] == "program_started"][0]
    os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=120)
    check(proc.returncode == 128 + signal.SIGKILL, f"sigkill: exit {proc.returncode}")
    s = info(trace)
    m, phases, _ = meta(trace)
    check(m.get("complete") == "false" and m.get("incomplete_reason") == "killed" and
          "signal 9" in m.get("incomplete_detail", ""), f"sigkill: {m.get('complete')} {m.get('incomplete_reason')}")
    check(s is not None and s["events"] > 0 and phases.count("optimizer") >= 2,
          f"sigkill: {s and s['events']} events, {phases.count('optimizer')} steps")


def torchrun_ranks():
    torchrun = os.path.join(os.path.dirname(python), "torchrun")
    if not os.path.exists(torchrun):
        print("torchrun: skipped, not in the venv")
        return
    ddp = write("ddp.py", DDP)
    trace = os.path.join(out, "ddp.sawtooth")
    for rank in (0, 1):
        remove_recording(os.path.join(out, f"ddp.rank{rank}.sawtooth"))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    with socket.socket() as s:  # a free port for the ranks' rendezvous
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = recorder(trace, [torchrun, "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", str(port), ddp],
                 env=env, timeout=400)
    check(r.returncode == 0, f"torchrun: exit {r.returncode}: {r.stderr[-1500:]}")
    check("rank 0 done" in r.stdout and "rank 1 done" in r.stdout, f"torchrun: stdout {r.stdout!r}")
    s = info(trace)
    if not s:
        return
    runs = sorted(run["name"] for run in s["runs"])
    check(runs == ["rank 0", "rank 1"], f"torchrun: runs {runs}")
    p = 2 * WIDTH * WIDTH
    for run in s["runs"]:
        cats = {}
        for peak in run.get("peaks", []):
            cats = peak.get("category_peaks", cats)
        check(near(cats.get("parameter"), 4 * p, 256), f"torchrun {run['name']}: parameters {cats.get('parameter')}")
        check(near(cats.get("optimizer_state"), 8 * p, 256), f"torchrun {run['name']}: Adam {cats.get('optimizer_state')}")
    for rank in (0, 1):
        check(os.path.exists(os.path.join(out, f"ddp.rank{rank}.sawtooth")), f"torchrun: rank {rank}'s own file kept")


def chained_sitecustomize():
    theirs = os.path.join(out, "theirs")
    os.makedirs(theirs, exist_ok=True)
    write("theirs/sitecustomize.py", "import os\nos.environ['THEIR_SITECUSTOMIZE'] = 'ran'\n")
    trace = os.path.join(out, "chained.sawtooth")
    env = dict(os.environ, PYTHONPATH=theirs)
    r = recorder(trace, [python, "-c", "import os, sys, sitecustomize; print(os.environ.get('THEIR_SITECUSTOMIZE'), "
                                       "sitecustomize.__file__.startswith(sys.argv[1]))", theirs], env=env)
    check(r.returncode == 0 and r.stdout.strip() == "ran True", f"chained sitecustomize: {r.stdout!r} {r.stderr[-300:]}")
    check(not os.path.exists(trace), "a program that never imports torch leaves no trace")
    check("recorded nothing" in r.stderr, f"no-torch: the recorder says so: {r.stderr[-300:]}")


def bad_commands():
    trace = os.path.join(out, "bad.sawtooth")
    r = recorder(trace, ["no-such-command-sawtooth"])
    check(r.returncode == 127 and "command not found" in r.stderr, f"not found: {r.returncode} {r.stderr[-200:]}")
    plain = write("not_executable.sh", "echo hi\n")
    os.chmod(plain, 0o644)
    r = recorder(trace, [plain])
    check(r.returncode == 126, f"not executable: {r.returncode} {r.stderr[-200:]}")
    existing = write("existing.sawtooth", "keep me")
    r = subprocess.run([record, "--out", existing, "--", "true"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 125 and "exists" in r.stderr, f"existing output: {r.returncode} {r.stderr[-200:]}")
    with open(existing) as f:
        check(f.read() == "keep me", "an existing output file was touched")
    r = subprocess.run([record, "--stacks", "cpp", "--", "true"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 125 and "--stacks" in r.stderr, f"bad option: {r.returncode} {r.stderr[-200:]}")
    r = subprocess.run([record, "--out", os.path.join(out, "shell.sawtooth"), "--", "sh", "-c", "exit 7"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 7, f"exit status of a non-Python command: {r.returncode}")


CASES = {
    "beside_profiler": lambda: [beside_profiler(ours), native_and_portable(ours)] if (ours := ok_run()) else None,
    "windows_run": windows_run,
    "exit_code_run": exit_code_run,
    "abort_run": abort_run,
    "stop_through_recorder": stop_through_recorder,
    "stop_busy": lambda: [stop_through_recorder("busy") for _ in range(3)],
    "ctrl_c_in_terminal": ctrl_c_in_terminal,
    "sigkill_program": sigkill_program,
    "chained_sitecustomize": chained_sitecustomize,
    "bad_commands": bad_commands,
    "torchrun_ranks": torchrun_ranks,
}
write("train.py", TRAIN)  # every case runs it
options = sys.argv[5:]
only = options[options.index("--only") + 1].split(",") if "--only" in options else list(CASES)
repeat = int(options[options.index("--repeat") + 1]) if "--repeat" in options else 1
unknown = [c for c in only if c not in CASES]
if unknown:
    print(f"unknown case(s) {unknown}; known: {', '.join(CASES)}")
    sys.exit(2)
for round_ in range(repeat):
    before = len(failures)
    for case in only:
        CASES[case]()
    if repeat > 1:
        print(f"round {round_ + 1}/{repeat}: {'ok' if len(failures) == before else 'FAILED'}", flush=True)

sys.exit(finish("all program-recording checks passed"))
