"""SIGINT to a training loop (autograd, Adam) unrecorded and recorded: its exit status.
Usage: int_train.py SAWTOOTH_RECORD PYTHON OUT"""
import os, signal, subprocess, sys, time
rec, python, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
train = os.path.join(out, "train.py")
open(train, "w").write('''
import sys, time, torch
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64))
opt = torch.optim.Adam(model.parameters())
for step in range(10**9):
    opt.zero_grad()
    with torch.autograd.profiler.record_function("my_block"):
        loss = model(torch.randn(16, 64)).pow(2).mean()
    loss.backward()
    opt.step()
    if step == 2:
        print("steady", flush=True)
    time.sleep(0.3)
''')
for label, cmd in (("unrecorded", [python, train]), ("recorded", [rec, "--quiet", "--out", out + "/a.sawtooth", "--force", "--", python, train]),
                   ("recorded -S", [rec, "--quiet", "--out", out + "/b.sawtooth", "--force", "--", python, "-S", train])):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    time.sleep(0.5)
    os.kill(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    print(f"{label}: exit {p.returncode} ({line.strip()}); stderr: {err.strip().splitlines()[-4:]}")
