#!/usr/bin/env python3
"""The pip wheel as a user in a virtual environment gets it (issue 26): built from the repository by
pip (scikit-build-core, build requirements from PyPI), installed into a fresh virtual environment
that sees the pinned torch, then that environment's sawtooth-record records a CPU training script
with the environment's torch and its sawtooth-trace reads the recording back.

usage: check_wheel.py SOURCE_DIR WORK_DIR TORCH_PYTHON

The fresh environment gets torch through a .pth file naming the pinned torch's site-packages
(scripts/setup.sh's cached environment), rather than a second 5 GB copy of the same wheels.
Exit 77 (skipped) when TORCH_PYTHON cannot import torch.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import time

source, work, torch_python = (os.path.abspath(a) for a in sys.argv[1:4])
failures = []


def check(ok, message):
    print(("ok: " if ok else "FAIL: ") + message, flush=True)
    if not ok:
        failures.append(message)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


probe = run([torch_python, "-c", "import torch, sysconfig; print(sysconfig.get_paths()['purelib']); "
                                 "import sys; print('%d.%d' % sys.version_info[:2])"])
if probe.returncode != 0:
    print(f"skipped: {torch_python} cannot import torch ({probe.stderr.strip()[-200:]})")
    sys.exit(77)
torch_site, torch_version = probe.stdout.split()
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# The wheel, built the way `pip install /path/to/sawtooth` builds it. Its CMake build folder sits
# beside the presets' (build/wheel): with ccache (CMAKE_CXX_COMPILER_LAUNCHER) and the same build
# type, the core objects the ci preset compiled are reused.
started = time.monotonic()
build_dir = os.path.join(source, "build", "wheel")
r = run([sys.executable, "-m", "pip", "wheel", source, "--no-deps", "-w", os.path.join(work, "dist"),
         f"--config-settings=build-dir={build_dir}", "--config-settings=cmake.build-type=RelWithDebInfo"])
wheels = glob.glob(os.path.join(work, "dist", "*.whl"))
check(r.returncode == 0 and len(wheels) == 1,
      f"pip wheel: exit {r.returncode} in {time.monotonic() - started:.0f} s, {[os.path.basename(w) for w in wheels]}"
      + ("" if r.returncode == 0 else "\n" + r.stdout[-3000:] + r.stderr[-3000:]))
if failures:
    sys.exit(1)
names = run([sys.executable, "-m", "zipfile", "-l", wheels[0]]).stdout
for member in ("data/bin/sawtooth-record", "data/bin/sawtooth-trace", "data/lib/sawtooth/python/sitecustomize.py",
               "data/lib/sawtooth/python/sawtooth_shim/channel.py", "data/lib/sawtooth/inject/libsawtooth_cupti_inject.so"):
    check(member in names, f"the wheel holds {member}")
check("libtorch" not in names and "libc10" not in names, "the wheel holds no LibTorch")

# A fresh environment of the same Python as the pinned torch's.
venv = os.path.join(work, "venv")
r = run([torch_python, "-c", "import sys; print(sys._base_executable)"])
base_python = r.stdout.strip() or sys.executable
r = run([base_python, "-m", "venv", venv])
check(r.returncode == 0, f"python -m venv: exit {r.returncode} {r.stderr.strip()[-300:]}")
python = os.path.join(venv, "bin", "python")
r = run([python, "-m", "pip", "install", "--no-deps", "--no-index", "-q", wheels[0]])
check(r.returncode == 0, f"pip install the wheel into a fresh environment: exit {r.returncode} {r.stderr.strip()[-500:]}")
site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
with open(os.path.join(site, "pinned-torch.pth"), "w") as f:
    f.write(torch_site + "\n")
record, trace = os.path.join(venv, "bin", "sawtooth-record"), os.path.join(venv, "bin", "sawtooth-trace")
check(os.access(record, os.X_OK) and os.access(trace, os.X_OK), "the environment's bin/ has sawtooth-record and sawtooth-trace")
libs = run(["ldd", record]).stdout
check("libtorch" not in libs and "libc10" not in libs, "sawtooth-record from the wheel loads no LibTorch")

script = os.path.join(work, "train.py")
with open(script, "w") as f:
    f.write("import torch\n"
            "model = torch.nn.Sequential(torch.nn.Linear(128, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))\n"
            "opt = torch.optim.Adam(model.parameters())\n"
            "for step in range(3):\n"
            "    opt.zero_grad()\n"
            "    torch.nn.functional.cross_entropy(model(torch.randn(64, 128)), torch.randint(0, 10, (64,))).backward()\n"
            "    opt.step()\n"
            "print('trained', torch.__version__)\n")
out = os.path.join(work, "train.sawtooth")
env = dict(os.environ, PATH=os.path.join(venv, "bin") + os.pathsep + os.environ.get("PATH", ""))
r = run([record, "--out", out, "--", python, script], env=env, cwd=work, timeout=600)
check(r.returncode == 0 and r.stdout.startswith("trained"),
      f"the environment's sawtooth-record -- python train.py: exit {r.returncode}, stdout {r.stdout.strip()!r}"
      + ("" if r.returncode == 0 else " " + r.stderr[-1500:]))
r = run([trace, "info", "--json", out])
info = json.loads(r.stdout) if r.returncode == 0 else {}
cpu = [d for d in info.get("devices", []) if d.get("device") in (-1, "cpu")]
check(bool(cpu) and cpu[0].get("peak_allocated_bytes", 0) > 0,
      f"the environment's sawtooth-trace reads it back: {info.get('events')} events, CPU peak "
      f"{cpu[0].get('peak_allocated_bytes') if cpu else None} bytes")
meta = info.get("meta", {})
check(meta.get("torch_version", "").startswith(torch_version.split(".")[0]) or "torch_version" in meta,
      f"the recording names the program's torch ({meta.get('torch_version')})")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("the wheel works: built, installed into a fresh environment, recorded with the environment's torch, read back")
