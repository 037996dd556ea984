#!/usr/bin/env python3
"""`sawtooth --export-png` renders a timeline without a display and exits, within its own bounds
(issue 28): hostile inputs made here — 200,000 overlapping annotations of distinct names, a snapshot
of 4,096 devices — render within 20 s under a 1.5 GB address-space limit.
Usage: check_export_png.py SAWTOOTH DATA_DIR OUT_DIR"""
import os
import pickle
import resource
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


# ---- the export's own bounds (issue 28, item 3): inputs inside the readers' limits that made the
# chart draw a band and a label per annotation, a line per device.
def snapshot_event(action, addr, size, time_us):
    return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": time_us,
            "compile_context": "N/A", "user_metadata": "", "frames": []}


def write_snapshot(name, device_traces, annotations):
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        pickle.dump({"segments": [], "device_traces": device_traces, "allocator_settings": {},
                     "external_annotations": annotations}, f, protocol=4)
    return path


# 200,000 annotations open at once, each of its own name, closed in reverse.
n = 200_000
events = ([snapshot_event("alloc", 4096 * (k + 1), 1 << 20, 10 + k) for k in range(100)] +
          [snapshot_event("free_completed", 4096 * (k + 1), 1 << 20, 1000 + k) for k in range(100)])
annotations = ([{"device": 0, "name": f"annotation {i}", "stage": "START", "time_us": i % 1000} for i in range(n)] +
               [{"device": 0, "name": f"annotation {i}", "stage": "END", "time_us": 2000 - i % 1000} for i in range(n)])
overlapping = write_snapshot("annotations_200k.pickle", [events], annotations)
# Exactly 4,096 devices (the readers' limit), two events each.
devices = write_snapshot("devices_4096.pickle", [
    [snapshot_event("alloc", 4096, 1 << (10 + d % 20), 1 + d), snapshot_event("free_completed", 4096, 1 << (10 + d % 20), 2 + d)]
    for d in range(4096)], [])


def limited():
    cap = 1536 << 20  # 1.5 GB of address space
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


for hostile, title in ((overlapping, None), (devices, "the 8 devices with the largest peaks, of 4,096")):
    png = hostile + ".svg" if title else hostile + ".png"
    try:
        r = subprocess.run([app, "--export-png", png, hostile], env=env, capture_output=True, text=True, timeout=20,
                           preexec_fn=limited)
    except subprocess.TimeoutExpired:
        failures.append(f"{os.path.basename(hostile)}: not rendered within 20 s")
        continue
    if r.returncode != 0:
        failures.append(f"{os.path.basename(hostile)}: exit {r.returncode} under 1.5 GB, stderr {r.stderr[-300:]!r}")
    elif title and title not in open(png, encoding="utf-8", errors="replace").read():
        failures.append(f"{os.path.basename(hostile)}: the picture does not say which devices it shows")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
