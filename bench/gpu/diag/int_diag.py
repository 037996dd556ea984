"""SIGINT to a sleeping program, unrecorded and recorded in several ways: its exit status.
Usage: int_diag.py SAWTOOTH_RECORD PYTHON OUT"""
import os, signal, subprocess, sys, time
rec, python, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
train = os.path.join(out, "train.py")
open(train, "w").write('''
import sys, time
if sys.argv[1] == "torch":
    import torch
    model = torch.nn.Linear(64, 64)
print("steady", flush=True)
while True:
    time.sleep(0.3)
''')
cases = [("unrecorded plain", [python, train, "plain"]), ("unrecorded torch", [python, train, "torch"]),
         ("recorded plain", [rec, "--quiet", "--out", out + "/a.sawtooth", "--force", "--", python, train, "plain"]),
         ("recorded torch", [rec, "--quiet", "--out", out + "/b.sawtooth", "--force", "--", python, train, "torch"]),
         ("recorded torch --cupti off", [rec, "--quiet", "--cupti", "off", "--out", out + "/c.sawtooth", "--force", "--", python, train, "torch"]),
         ("recorded torch --shim off --cpu off --modules off", [rec, "--quiet", "--shim", "off", "--cpu", "off", "--modules", "off", "--out", out + "/d.sawtooth", "--force", "--", python, train, "torch"]),
         ("recorded plain, no PYTHONPATH shim (-S)", [rec, "--quiet", "--out", out + "/e.sawtooth", "--force", "--", python, "-S", train, "plain"])]
for label, cmd in cases:
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    time.sleep(0.5)
    os.kill(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    print(f"{label}: exit {p.returncode} ({line.strip()}); stderr: {err.strip().splitlines()[-1:] if err.strip() else ''}")
