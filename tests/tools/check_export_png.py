#!/usr/bin/env python3
"""`sawtooth --export-png` renders a timeline without a display and exits.
Usage: check_export_png.py SAWTOOTH DATA_DIR OUT_DIR"""
import os
import struct
import subprocess
import sys

app, data, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
failures = []

png = os.path.join(out, "anatomy.png")
r = subprocess.run([app, "--export-png", png, "--size", "1200x600", os.path.join(data, "anatomy_adam_snapshot.pickle")],
                   env=env, capture_output=True, text=True, timeout=60)
if r.returncode != 0:
    failures.append(f"export failed: {r.returncode} {r.stderr}")
else:
    head = open(png, "rb").read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        failures.append("not a PNG")
    w, h = struct.unpack(">II", head[16:24])
    if (w, h) != (1200, 600):
        failures.append(f"size {w}x{h}")

svg = os.path.join(out, "anatomy.svg")
r = subprocess.run([app, "--export-png", svg, "--x-axis", "time", os.path.join(data, "anatomy_adam_profiler_trace.json.gz")],
                   env=env, capture_output=True, text=True, timeout=60)
if r.returncode != 0 or b"<svg" not in open(svg, "rb").read():
    failures.append(f"svg export failed: {r.stderr}")

bad = os.path.join(data, "hostile_stack_global_p4.pickle")
r = subprocess.run([app, "--export-png", os.path.join(out, "bad.png"), bad], env=env, capture_output=True, text=True,
                   timeout=60)
lines = r.stderr.strip().splitlines()
if r.returncode != 1 or not lines or bad not in lines[-1] or "STACK_GLOBAL" not in lines[-1]:
    failures.append(f"bad input: exit {r.returncode}, stderr {r.stderr!r}")

# A command-line parse error is exit 2, and --help lists the exit codes.
r = subprocess.run([app, "--no-such-option"], env=env, capture_output=True, text=True, timeout=60)
if r.returncode != 2 or "no-such-option" not in r.stderr:
    failures.append(f"bad option: exit {r.returncode}, stderr {r.stderr!r}")
r = subprocess.run([app, "--help"], env=env, capture_output=True, text=True, timeout=60)
if r.returncode != 0 or "Exit codes: 0 ok, 1 " not in r.stdout:
    failures.append(f"--help: exit {r.returncode}, no exit codes in {r.stdout!r}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
