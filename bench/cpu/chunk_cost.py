"""What the shim's CPU recording costs a training step, beside torch.profiler(profile_memory=True)'s
own cost, measured inside one process so that a loaded machine's drift cancels out (issue 27,
item 8; record_overhead.py measures whole runs, which move by tens of percent on a shared machine).

The MLP of mlp_loop.py runs in short blocks of STEPS steps, the configurations alternating block by
block (the order rotating), for ROUNDS rounds:

- plain: the steps alone;
- profiler: the steps inside the profiler's session as the shim configures it (memory events, no
  operator observed); the session's stop is timed apart (torch.profiler's user pays it once, at
  its end, outside the loop);
- shim: the steps, then the shim's cut of that chunk (CpuAllocations.cut: the session's stop, the
  walk of its memory events, the records sent into a socket whose other end reads them) — what a
  recorded program pays at a step's end; given twice with --before SHIM_DIR, as an earlier shim;
- native (--tracker LIBRARY, the default path of sawtooth-record): the steps with the tracker
  library's CPU reporter on (cpu_native.py), its sending thread naming each allocation's Python
  stack (--tracker-stacks 0: none) and sending into the socket. Its work is on another thread but
  takes the GIL to name frames: read it in wall time (--wall).

Per configuration: the median over rounds of the block's seconds over the same round's plain
block, in the main thread's CPU time (what the loop spends; on a loaded machine, the time it
waits for a core would drown it), or with --wall in wall time. Prints a Markdown table.

Usage: chunk_cost.py SHIM_DIR [--before SHIM_DIR] [--tracker LIBRARY [--tracker-stacks 0|1]] [--rounds N]
       [--steps N] [--wall]
"""
import argparse
import atexit
import importlib
import os
import shutil
import socket
import statistics
import sys
import threading
import time

import torch

# The main thread's CPU time: what the loop itself spends, not the time it waits for a core on a
# loaded machine (the sink's thread and other processes are not counted); --wall for wall time.
clock = time.thread_time


def load_shim(path):
    for name in [n for n in sys.modules if n == "sawtooth_shim" or n.startswith("sawtooth_shim.")]:
        del sys.modules[name]
    sys.path.insert(0, path)
    try:
        return importlib.import_module("sawtooth_shim.cpu_allocations"), importlib.import_module("sawtooth_shim.channel")
    finally:
        sys.path.pop(0)


class Sink:
    """The recorder's end of a socket: reads and drops what the shim sends."""

    def __init__(self):
        self.dir = f"/tmp/sawtooth-chunk-cost-{os.getpid()}"
        os.makedirs(self.dir, exist_ok=True)
        self.path = os.path.join(self.dir, "s")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(8)
        atexit.register(shutil.rmtree, self.dir, True)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            c, _ = self.server.accept()
            threading.Thread(target=self._drain, args=(c,), daemon=True).start()

    @staticmethod
    def _drain(c):
        while c.recv(1 << 20):
            pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("shim")
    p.add_argument("--before")
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--wall", action="store_true", help="wall time instead of the main thread's CPU time")
    p.add_argument("--tracker", help="libsawtooth_torch_tracker.so: adds the native configuration")
    p.add_argument("--tracker-stacks", type=int, default=1)
    a = p.parse_args()
    global clock
    if a.wall:
        clock = time.perf_counter
    torch.manual_seed(0)
    torch.set_num_threads(1)
    w = a.width
    model = torch.nn.Sequential(torch.nn.Linear(w, w), torch.nn.ReLU(), torch.nn.Linear(w, w), torch.nn.ReLU(),
                                torch.nn.Linear(w, w), torch.nn.ReLU(), torch.nn.Linear(w, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(64, w)
    y = torch.randint(0, 10, (64,))

    def steps():
        for _ in range(a.steps):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

    sink = Sink()
    shims = {"shim": load_shim(a.shim)}
    if a.before:
        shims["shim before"] = load_shim(a.before)
    recorders = {}
    for name, (cpu_module, channel_module) in shims.items():
        ch = channel_module.Channel(sink.path, {"role": "bench", "pid": os.getpid()})
        recorders[name] = cpu_module.CpuAllocations(torch, ch)
    c = torch._C._autograd
    config = next(iter(recorders.values()))._configure()

    def plain():
        t = clock()
        steps()
        return clock() - t, 0.0

    def profiler():
        c._prepare_profiler(*config)
        c._enable_profiler(config[0], config[1], {torch._C._profiler.RecordScope.LITE_INTERPRETER})
        t = clock()
        steps()
        loop = clock() - t
        t = clock()
        c._disable_profiler()
        return loop, clock() - t

    def recorded(r, **start):
        def run():
            r.start(**start)
            t = clock()
            steps()
            r.cut(final=True)
            return clock() - t, 0.0
        return run

    configs = {"plain": plain, "profiler": profiler}
    configs.update({name: recorded(r, announce=False) for name, r in recorders.items()})
    if a.tracker:
        sys.path.insert(0, a.shim)
        cuda_native, cpu_native = (importlib.import_module(f"sawtooth_shim.{m}") for m in ("cuda_native", "cpu_native"))
        sys.path.pop(0)
        lib, why = cuda_native.load(torch, a.tracker, a.tracker[:-3] + ".torch")
        if lib is None or lib.sawtooth_tracker_connect(sink.path.encode(), a.tracker_stacks, 50) != 0:
            sys.exit(f"the tracker library does not run here: {why}")
        atexit.register(lib.sawtooth_tracker_stop, b"done")
        configs["native"] = recorded(cpu_native.NativeCpu(lib, None))
    names = list(configs)
    for name in names:  # warm-up
        configs[name]()
    seconds = {n: [] for n in names}
    stops = []
    for r in range(a.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            loop, stop = configs[name]()
            seconds[name].append(loop)
            if name == "profiler":
                stops.append(stop)
    ratio = {n: statistics.median(seconds[n][i] / seconds["plain"][i] for i in range(a.rounds)) for n in names}
    stop_ratio = statistics.median((seconds["profiler"][i] + stops[i]) / seconds["plain"][i] for i in range(a.rounds))
    print(f"{a.rounds} rounds of {a.steps}-step blocks, MLP width {w}, batch 64, Adam, one torch thread; "
          f"{'wall time' if a.wall else 'the main thread CPU time'}; load average {os.getloadavg()[0]:.1f} at the end\n")
    print("| configuration | median block (s) | × plain (paired median) |")
    print("|---|---:|---:|")
    for n in names:
        print(f"| {n} | {statistics.median(seconds[n]):.4f} | {ratio[n]:.3f} |")
    print(f"| profiler, its stop counted | {statistics.median(s + t for s, t in zip(seconds['profiler'], stops)):.4f} "
          f"| {stop_ratio:.3f} |")
    for r in recorders.values():
        if r.unavailable:
            print(f"\nthe shim's session could not start: {r.unavailable}")


if __name__ == "__main__":
    main()
