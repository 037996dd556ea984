"""What the allocator tracker costs a Python program's thread with stacks on, with and without its
frame cache, beside PyTorch's stack capture alone; no GPU needed. The program is a loop of
"allocations" through tests' tracker_python_probe library (a stand-in for the CUDA caching
allocator: PyTorch's own CapturedTraceback::gather, then the tracker), from DEPTH-deep call chains
ending at SITES call sites, as a model's layers do. Cases, in one process, alternating, ROUNDS times:
  capture   the stack captured and handed to the tracker while it is off (PyTorch's history alone)
  cache     the tracker on: its thread symbolizes new frames only (the default)
  nocache   the tracker on, SAWTOOTH_TRACKER_FRAME_CACHE=0: torch symbolizes each delivery's frames
A reader thread drains the tracker's socket. Printed: microseconds per allocation on the program's
thread (the median over rounds, and each case over the first paired by round) and the tracker's
goodbye.
Usage: python_stacks_bench.py PROBE_LIBRARY [--allocs N] [--rounds R] [--depth D] [--sites S]"""
import argparse
import ctypes
import os
import socket
import statistics
import threading
import time

import torch  # noqa: F401 -- PyTorch's Python stack capture
import torch._inductor.codecache  # noqa: F401 -- imported by PyTorch's symbolizer on first use, as the shim does

p = argparse.ArgumentParser()
p.add_argument("library")
p.add_argument("--allocs", type=int, default=200_000)
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--depth", type=int, default=24)
p.add_argument("--sites", type=int, default=64)
p.add_argument("--cases", default="capture,cache,nocache")
args = p.parse_args()
lib = ctypes.CDLL(args.library)
lib.probe_start.argtypes = [ctypes.c_char_p]
lib.probe_alloc.argtypes = [ctypes.c_ulonglong, ctypes.c_ulonglong]
alloc = lib.probe_alloc

# SITES distinct leaf functions, each a call site of its own (as a model's many layers)
namespace = {"alloc": alloc}
for s in range(args.sites):
    exec(f"def site_{s}(i):\n    alloc(i, 512)\n", namespace)
sites = [namespace[f"site_{s}"] for s in range(args.sites)]


def chain(depth, i):
    if depth == 0:
        sites[i % len(sites)](i)
    else:
        chain(depth - 1, i)


def loop(n):
    t0 = time.perf_counter()
    for i in range(n):
        chain(args.depth, i)
    return (time.perf_counter() - t0) / n * 1e6


def reader(server, out):
    conn, _ = server.accept()
    data = b""
    while chunk := conn.recv(1 << 20):
        data += chunk[-4096:] if len(data) > 8192 else chunk  # keep the tail: the goodbye
        data = data[-16384:]
    out.append(data)


def run(case):
    if case == "capture":
        return loop(args.allocs), ""
    os.environ["SAWTOOTH_TRACKER_FRAME_CACHE"] = "1" if case == "cache" else "0"
    path = f"/tmp/sawtooth-bench-{os.getpid()}.sock"
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    out = []
    t = threading.Thread(target=reader, args=(server, out))
    t.start()
    if lib.probe_start(path.encode()) != 0:
        raise SystemExit("the tracker did not start")
    us = loop(args.allocs)
    lib.probe_stop()
    t.join()
    server.close()
    os.unlink(path)
    tail = out[0].decode(errors="replace")
    return us, tail[tail.rfind('{"reason"'):].split("}")[0] + "}"


loop(2000)  # warm up
cases = args.cases.split(",")
times = {c: [] for c in cases}
for r in range(args.rounds):
    for case in cases if r % 2 == 0 else cases[::-1]:
        us, bye = run(case)
        times[case].append(us)
        print(f"round {r + 1} {case}: {us:.2f} us/alloc {bye}", flush=True)
for case in cases[1:]:  # paired: each round's cases ran back to back
    ratios = [t / b for t, b in zip(times[case], times[cases[0]])]
    print(f"{case} / {cases[0]}, paired by round: median {(statistics.median(ratios) - 1) * 100:+.1f} % "
          f"({', '.join(f'{(r - 1) * 100:+.1f}' for r in ratios)})")
base = statistics.median(times[cases[0]])
for case, v in times.items():
    m = statistics.median(v)
    print(f"{case}: median {m:.2f} us/alloc ({(m / base - 1) * 100:+.1f} % over {cases[0]}); rounds {[round(x, 2) for x in v]}")
