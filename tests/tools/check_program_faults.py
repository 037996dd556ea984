#!/usr/bin/env python3
"""sawtooth-record -- COMMAND under faults (issue 27, items 4 and 11), with real CPU programs:

- the recorder killed (SIGKILL): the program dies with it (unless --keep-running), the file says
  incomplete_reason=killed (the documented keyword) and is one self-contained file (no -wal/-shm),
  the socket folder is gone; the recorder crashed (SIGSEGV): incomplete_reason=crashed;
- --out refuses a link, a FIFO and /dev/full — with --force too — before the program runs, with a
  message that says what it is (not "the file exists (--force replaces it)");
- recordings are private: mode 0600; a CPU recording says shim_mode=native and stacks=python (the
  tracker's reporter), with --shim portable shim_mode=cpu and stacks=none (the profiler's memory
  events carry no stacks);
- a full disk (RLIMIT_FSIZE): exit 125, the file says incomplete (file size limit reached) and
  stderr does not claim "recorded into"; a limit too small for a new file's schema: stderr names
  the file size limit (SQLite says only "disk I/O error");
- children on the CPU (subprocess, torch.multiprocessing.spawn, Python under os.system's shell)
  each record into FILE.pidP, the file asked for stays the program's own process' even when a
  child delivers first; the children it leaves out (a shell, a Python child that never imports
  torch, os.system's shell, os.posix_spawnp's and os.spawnvp's programs, a fork; the program's own
  process when it is a shell) are named, with why, on stderr and in the program's file
  (processes_left_out);
- a program that ignores SIGTERM and is killed after --kill-after before delivering anything is
  not reported as "recorded nothing".

Usage: check_program_faults.py SAWTOOTH_RECORD PYTHON OUT_DIR (exit 77 without torch)"""
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recording_checks import check, failures, finish, meta, remove_recording, start, write  # noqa: E402

record, python, out = sys.argv[1:4]
start(out, python)

ENDLESS = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    import torch
    if len(sys.argv) > 2 and sys.argv[2] == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        keep = [torch.ones(1 << 16) for _ in range(8)]  # allocations, and no step to deliver them at
        print("steady", os.getpid(), flush=True)
        time.sleep(600)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    model = torch.nn.Linear(64, 64)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with open(sys.argv[1], "w") as f:
        f.write(f"{os.getpid()} {child.pid} {os.path.dirname(os.environ.get('SAWTOOTH_SOCKET', '/-'))}")
    for step in range(10**9):
        opt.zero_grad()
        model(torch.randn(8, 64)).sum().backward()
        opt.step()
        if step == 5:
            print("steady", os.getpid(), flush=True)
        time.sleep(0.05)
""")
SHORT = textwrap.dedent("""
    import sys, torch
    model = torch.nn.Linear(256, 256)
    opt = torch.optim.Adam(model.parameters())
    for step in range(int(sys.argv[1])):
        opt.zero_grad()
        model(torch.randn(64, 256)).sum().backward()
        opt.step()
    print("done", flush=True)
""")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return not any(alive(p) for p in pids)


FAMILY = textwrap.dedent("""
    import os, subprocess, sys, torch, torch.multiprocessing as mp

    def worker(rank):
        keep = [torch.ones(1 << 16) for _ in range(4)]

    if __name__ == "__main__":
        print("parent", os.getpid(), flush=True)
        # The children deliver at their exit, before the parent's first step: they must not take FILE,
        # nor must a grandchild through os.system's shell.
        subprocess.run([sys.executable, "-c", "import torch; x = [torch.ones(1 << 16) for _ in range(3)]"], check=True)
        os.system(f"{sys.executable} -c 'import torch; x = [torch.ones(1 << 15) for _ in range(2)]'")
        mp.spawn(worker, nprocs=1)
        # Left out, and said so: a shell, and a Python child that never imports torch; os.system's
        # shell, os.posix_spawnp's and os.spawnvp's programs, a fork.
        subprocess.run(["sh", "-c", "echo from-sh"], check=True)
        subprocess.run([sys.executable, "-c", "print('no torch here')"], check=True)
        os.system("echo from-system")
        os.waitpid(os.posix_spawnp("true", ["true", "posix-spawned"], os.environ), 0)
        os.spawnvp(os.P_WAIT, "true", ["true", "from-spawnvp"])
        forked = os.fork()
        if forked == 0:
            os._exit(0)
        os.waitpid(forked, 0)
        model = torch.nn.Linear(64, 64)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            model(torch.randn(8, 64)).sum().backward()
            opt.step()
        print("parent done", flush=True)
""")
endless = write("endless.py", ENDLESS)
family = write("family.py", FAMILY)
short = write("short.py", SHORT)


def recorder_dies(sig, expect_reason, keep_running=False):
    label = f"recorder {signal.Signals(sig).name}" + (" --keep-running" if keep_running else "")
    trace = os.path.join(out, f"dies-{sig}{'-keep' if keep_running else ''}.sawtooth")
    pids_file = trace + ".pids"
    remove_recording(trace, (".progress",))
    extra = ["--keep-running"] if keep_running else []
    proc = subprocess.Popen([record, "--out", trace, "--progress", trace + ".progress", *extra, "--", python, endless,
                             pids_file], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not check("steady" in line, f"{label}: the program never got going: {line!r}"):
        proc.kill()
        return
    time.sleep(0.5)  # a batch or two committed
    with open(pids_file) as f:
        program, child, folder = f.read().split()
        program, child = int(program), int(child)
    proc.send_signal(sig)
    proc.wait(timeout=60)  # the program keeps the pipes open with --keep-running: not communicate() yet
    check(proc.returncode == -sig, f"{label}: the recorder ended with {proc.returncode}")
    if keep_running:
        time.sleep(1)
        check(alive(program), f"{label}: the program was killed though --keep-running")
        for pid in (program, child):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    else:
        if not check(wait_gone([program, child]), f"{label}: the program ({program}) or its child ({child}) outlived the recorder"):
            for pid in (program, child):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    proc.communicate(timeout=60)
    deadline = time.time() + 10
    while time.time() < deadline and (os.path.exists(trace + "-wal") or meta(trace).get("incomplete_reason") != expect_reason):
        time.sleep(0.1)  # the watcher marks the file as the recorder dies
    m = meta(trace)
    check(m.get("complete") == "false" and m.get("incomplete_reason") == expect_reason,
          f"{label}: complete={m.get('complete')} reason={m.get('incomplete_reason')!r}, expected {expect_reason!r}")
    check(not os.path.exists(trace + "-wal") and not os.path.exists(trace + "-shm"), f"{label}: -wal/-shm left behind")
    check(not os.path.exists(folder), f"{label}: socket folder {folder} left behind")
    with open(trace + ".progress") as f:
        last = [json.loads(x) for x in f if x.strip()][-1]
    check(last.get("stage") == "error" and last.get("kind") == expect_reason, f"{label}: last progress line {last}")


recorder_dies(signal.SIGKILL, "killed")
recorder_dies(signal.SIGKILL, "killed", keep_running=True)
recorder_dies(signal.SIGSEGV, "crashed")

# --out refusals before the program runs, with and without --force.
target = write("target.sawtooth", "precious")
link = os.path.join(out, "link.sawtooth")
fifo = os.path.join(out, "fifo.sawtooth")
for p in (link, fifo):
    if os.path.lexists(p):
        os.remove(p)
os.symlink(target, link)
os.mkfifo(fifo)
marker = os.path.join(out, "ran")
for path in (link, fifo, "/dev/full"):
    for force in ([], ["--force"]):
        if os.path.exists(marker):
            os.remove(marker)
        r = subprocess.run([record, "--out", path, *force, "--", python, "-c", f"open({marker!r}, 'w')"],
                           capture_output=True, text=True, timeout=60)
        label = f"--out {path} {' '.join(force)}"
        check(r.returncode == 125, f"{label}: exit {r.returncode}")
        check(not os.path.exists(marker), f"{label}: the program ran before the refusal")
        check("--force replaces it" not in r.stderr and ("link" in r.stderr or "not a regular file" in r.stderr),
              f"{label}: message {r.stderr.strip()!r}")
with open(target) as f:
    check(f.read() == "precious", "the link's target was touched")

# Private recordings, and a full disk (the file size limit).
trace = os.path.join(out, "private.sawtooth")
remove_recording(trace, (".progress",))
r = subprocess.run([record, "--quiet", "--out", trace, "--", python, short, "3"], capture_output=True, text=True,
                   timeout=300)
check(r.returncode == 0, f"private: exit {r.returncode}: {r.stderr[-500:]}")
mode = stat.S_IMODE(os.stat(trace).st_mode) if os.path.exists(trace) else None
check(mode == 0o600, f"a recording is created with mode {oct(mode or 0)}, not 0600")
# A CPU recording says which shim ran: the tracker's (native, with Python stacks) by default; through
# the profiler's memory events (--shim portable) its allocations carry no stacks (not stacks=python).
m = meta(trace) if os.path.exists(trace) else {}
check(m.get("shim_mode") == "native" and m.get("stacks") == "python",
      f"a CPU recording says shim_mode={m.get('shim_mode')!r} stacks={m.get('stacks')!r}")
portable = os.path.join(out, "portable.sawtooth")
remove_recording(portable, (".progress",))
r = subprocess.run([record, "--quiet", "--shim", "portable", "--cpu", "on", "--out", portable, "--", python, short, "3"],
                   capture_output=True, text=True, timeout=300)
check(r.returncode == 0, f"portable: exit {r.returncode}: {r.stderr[-500:]}")
m = meta(portable) if os.path.exists(portable) else {}
check(m.get("shim_mode") == "cpu" and m.get("stacks") == "none" and "without stacks" in m.get("stacks_note", ""),
      f"a --shim portable CPU recording says shim_mode={m.get('shim_mode')!r} stacks={m.get('stacks')!r}")

trace = os.path.join(out, "full.sawtooth")
remove_recording(trace, (".progress",))
limit = 1024 * 1024  # past a new file's schema and first batches (format 3 writes summaries), short of 400 steps


def small_files():
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


r = subprocess.run([record, "--out", trace, "--", python, short, "400"], capture_output=True, text=True, timeout=600,
                   preexec_fn=small_files)
check(r.returncode == 125, f"full disk: exit {r.returncode} (125: the program ran, the recording failed): {r.stderr[-800:]}")
check("recorded into" not in r.stderr, f"full disk: stderr still says 'recorded into': {r.stderr[-500:]}")
check("file size limit" in r.stderr, f"full disk: stderr does not say why: {r.stderr[-500:]}")
m = meta(trace) if os.path.exists(trace) else {}
check(m.get("complete") == "false" and m.get("incomplete_reason") in ("file size limit reached", "killed"),
      f"full disk: complete={m.get('complete')} reason={m.get('incomplete_reason')}")

# A file size limit too small for a new recording's schema: the file cannot even be created, and
# the user is told why (SQLite alone says "disk I/O error"), not that the program recorded nothing.
trace = os.path.join(out, "tiny.sawtooth")
remove_recording(trace, (".progress",))
limit = 16 * 1024
r = subprocess.run([record, "--out", trace, "--", python, short, "3"], capture_output=True, text=True, timeout=600,
                   preexec_fn=small_files)
check(r.returncode == 125, f"no room for a new file: exit {r.returncode}: {r.stderr[-800:]}")
check("file size limit was reached" in r.stderr and "16384 bytes" in r.stderr,
      f"no room for a new file: stderr does not name the cause: {r.stderr[-800:]}")
check("recorded nothing" not in r.stderr and "nothing was recorded" in r.stderr,
      f"no room for a new file: the last words: {r.stderr[-400:]}")
left = [trace + suffix for suffix in ("", "-wal", "-shm", "-journal") if os.path.exists(trace + suffix)]
check(not left, f"no room for a new file: the half-made database is left behind: {left}")

# Children on the CPU (subprocess, torch.multiprocessing.spawn): each records into FILE.pidP, and
# the file asked for is the program's own process' even when a child delivers first.
trace = os.path.join(out, "family.sawtooth")
for name in os.listdir(out):
    if name.startswith("family.") and ".sawtooth" in name:
        os.remove(os.path.join(out, name))
r = subprocess.run([record, "--out", trace, "--", python, family], capture_output=True, text=True, timeout=300)
check(r.returncode == 0 and "parent done" in r.stdout, f"children: exit {r.returncode}: {r.stderr[-800:]}")
check(f"recorded into {trace}" in r.stderr, f"children: the last words: {r.stderr[-400:]}")
pid_files = sorted(n for n in os.listdir(out) if n.startswith("family.pid") and n.endswith(".sawtooth"))
m = meta(trace) if os.path.exists(trace) else {}
program_pid = r.stdout.split()[1] if r.stdout.startswith("parent ") else None
check(program_pid is not None and m.get("pid") == program_pid,
      f"children: {trace} is pid {m.get('pid')}'s, not the program's ({r.stdout.strip()!r})")
roles = sorted(meta(os.path.join(out, n)).get("program.argv", "") for n in pid_files)
check(len(pid_files) == 3 and sum("import torch" in a for a in roles) == 2 and any("multiprocessing" in a for a in roles),
      f"children: their files {pid_files}: {roles}")
# The children it left out are named, with why, on stderr and in the program's file.
left = m.get("processes_left_out", "")
for what, text in (("stderr", r.stderr), ("the file's processes_left_out", left)):
    check("sh -c 'echo from-sh'): never connected: not a Python program" in text,
          f"children: {what} does not name the shell child as left out: {text[-800:]!r}")
    check("no torch here" in text and "allocated nothing through torch" in text,
          f"children: {what} does not name the child without torch as left out: {text[-800:]!r}")
    for started, why in (("os.system (/bin/sh -c 'echo from-system')", "a shell, not recorded"),
                         ("(true posix-spawned)", "never connected"), ("(true from-spawnvp)", "never connected"),
                         (f"(a fork of {python} {family})", "forked processes are not recorded")):
        check(f"{started}: {why}" in text, f"children: {what} does not name {started} as left out: {text[-1500:]!r}")
check("left out" in r.stderr, f"children: no 'left out' line on stderr: {r.stderr[-600:]}")

# A program whose own process is a shell: its Python child records, and the shell is named as left out.
trace = os.path.join(out, "shell.sawtooth")
remove_recording(trace, (".progress",))
r = subprocess.run([record, "--out", trace, "--", "sh", "-c", f"{python} -c 'import torch; x = torch.ones(1000)'; true"],
                   capture_output=True, text=True, timeout=300)
m = meta(trace) if os.path.exists(trace) else {}
for what, text in (("stderr", r.stderr), ("the file's processes_left_out", m.get("processes_left_out", ""))):
    check("(the program's own process): never connected" in text,
          f"a shell program: {what} does not name the shell as left out: {text[-600:]!r}")

# A program that ignores SIGTERM, killed after --kill-after: through the profiler's path (--shim
# portable) before it delivered anything (no step ended), through the tracker's with its allocations
# delivered (the tracker sends as it goes).
for shim in ("portable", "native"):
    trace = os.path.join(out, f"ignores-{shim}.sawtooth")
    remove_recording(trace, (".progress",))
    proc = subprocess.Popen([record, "--kill-after", "2", "--shim", shim, "--out", trace, "--", python, endless, "-",
                             "ignore-term"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if check("steady" in line, f"ignores SIGTERM ({shim}): the program never got going: {line!r}"):
        time.sleep(0.5)  # the tracker's delivery (every 50 ms)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        check(proc.returncode == 128 + signal.SIGKILL, f"ignores SIGTERM ({shim}): exit {proc.returncode}")
        said = "delivered nothing before it ended" if shim == "portable" else "8 allocator events"
        check("recorded nothing" not in err and said in err,
              f"ignores SIGTERM ({shim}): the recorder's last words: {err[-600:]}")

sys.exit(finish("every fault ended as documented"))
