"""A recorded CPU training loop stopped by SIGTERM or SIGINT through sawtooth-record, with and without
parts of the recording; prints how the file says it ended. Usage: stop_diag.py SAWTOOTH_RECORD PYTHON OUT [CASE,...]"""
import os, signal, sqlite3, subprocess, sys, time
rec, python, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
train = os.path.join(out, "train.py")
open(train, "w").write('''
import sys, time, torch
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64))
opt = torch.optim.Adam(model.parameters())
for step in range(10**9):
    opt.zero_grad()
    model(torch.randn(16, 64)).pow(2).mean().backward()
    opt.step()
    if step == 2:
        print("steady", flush=True)
    time.sleep(0.3)
''')
CASES = (("term-default", [], signal.SIGTERM), ("term-cpu-off", ["--cpu", "off"], signal.SIGTERM),
         ("term-portable", ["--shim", "portable", "--cpu", "on"], signal.SIGTERM),
         ("int-default", [], signal.SIGINT), ("int-cpu-off", ["--cpu", "off"], signal.SIGINT),
         ("int-shim-off", ["--cpu", "off", "--shim", "off", "--modules", "off"], signal.SIGINT))
only = sys.argv[4].split(",") if len(sys.argv) > 4 else None
for label, extra, sig in CASES:
    if only and label not in only:
        continue
    trace = os.path.join(out, label + ".sawtooth")
    for s in ("", "-wal", "-shm"):
        if os.path.exists(trace + s): os.remove(trace + s)
    p = subprocess.Popen([rec, "--out", trace, *extra, "--", python, train], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    time.sleep(0.5)
    if sig == signal.SIGINT:
        os.kill(p.pid, signal.SIGINT)  # the recorder passes it on
    else:
        p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    print(f"== {label}: exit {p.returncode}; got {line.strip()!r}")
    print("   stderr tail:", err[-700:].replace("\n", "\n   "))
    db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
    m = dict(db.execute("SELECT key, value FROM meta").fetchall())
    for k in sorted(m):
        if k.startswith(("complete", "incomplete", "capture.tracker", "capture.shim", "program.end", "notices", "shim_mode", "program.exit")):
            print(f"   {k} = {m[k][:400]}")
