"""The programs the signal diagnostics stop, and how they stop them."""
import os
import signal
import subprocess
import time

TRAIN = '''
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
'''

SLEEPER = '''
import sys, time
if sys.argv[1] == "torch":
    import torch
    model = torch.nn.Linear(64, 64)
print("steady", flush=True)
while True:
    time.sleep(0.3)
'''


def write(out, name, text):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def signalled(cmd, sig):
    """Runs cmd until it prints its first line, sends sig, and returns (exit status, that line, stderr)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    time.sleep(0.5)
    os.kill(p.pid, sig)
    _, err = p.communicate(timeout=60)
    return p.returncode, line.strip(), err
