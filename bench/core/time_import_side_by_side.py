#!/usr/bin/env python3
"""Whole-process import timings side by side with Python's pickle.loads, interleaved round by round
so that both see the same machine load:

  - `sawtooth-trace info --json FILE` as a new process (start, map, decode, check, summarise, print,
    exit), wall time and peak resident memory (GNU time's %M, /usr/bin/time being its parent);
  - `sawtooth --export-png OUT FILE` as a new process, when --gui is given;
  - `pickle.loads` of the same bytes in this process (the bytes already in memory; reading the file
    not timed), with the garbage collector disabled (the stricter reference) and enabled (Python's
    default, what PyTorch's _memory_viz.py gets).

The files are read once first, so every run finds them in the page cache. Prints one JSON line per
run and a Markdown table (best and median of the runs, and the ratios of the bests); with --out NAME.md,
writes the table under a title to NAME.md and the runs, with the command and the machine, to NAME.json.

Usage: time_import_side_by_side.py --tool build/rel/bin/sawtooth-trace [--gui build/rel/bin/sawtooth]
                                   [--runs 5] [--out bench/results/NAME.md] FILE...
Python standard library only.
"""
import argparse
import gc
import json
import os
import pickle
import platform
import statistics
import subprocess
import sys
import tempfile
import time


def run_process(argv, env=None):
    # The peak resident memory comes from GNU time, the tool's parent: a child of this process
    # would report this process's own memory (the file's bytes, the unpickled objects) as its peak,
    # because the kernel keeps the peak of the image the child had before exec.
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=env)
        _, status, _ = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{argv}: exit {os.waitstatus_to_exitcode(status)}: {err.strip()[-300:]}")
        return seconds, int(rss.read().split()[-1]) * 1024


def time_loads(raw, gc_enabled):
    gc.collect()
    if not gc_enabled:
        gc.disable()
    start = time.perf_counter()
    obj = pickle.loads(raw)
    seconds = time.perf_counter() - start
    gc.enable()
    events = sum(len(t) for t in obj.get("device_traces", [])) if isinstance(obj, dict) else 0
    del obj
    gc.collect()
    return seconds, events


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} CPUs, {mem:.1f} GiB RAM, {platform.platform()}, Python {platform.python_version()}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True, help="sawtooth-trace binary")
    parser.add_argument("--gui", help="sawtooth binary (for --export-png)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", help="also write the Markdown table here")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    rows = []
    runs = []
    load_before = loadavg()
    for path in args.files:
        with open(path, "rb") as f:
            raw = f.read()
        size = len(raw)
        times = {"info": [], "export-png": [], "loads (gc off)": [], "loads (gc on)": []}
        rss = {"info": [], "export-png": []}
        events = 0
        for r in range(args.runs):
            s, m = run_process([args.tool, "info", "--json", path])
            times["info"].append(s)
            rss["info"].append(m)
            if args.gui:
                s, m = run_process([args.gui, "--export-png", "/tmp/sawtooth-side-by-side.png", path], env)
                times["export-png"].append(s)
                rss["export-png"].append(m)
            s, events = time_loads(raw, False)
            times["loads (gc off)"].append(s)
            s, _ = time_loads(raw, True)
            times["loads (gc on)"].append(s)
            print(json.dumps({"file": os.path.basename(path), "run": r, "load": loadavg(),
                              **{k: round(v[-1], 4) for k, v in times.items() if v},
                              **{f"{k} peak RSS MB": round(v[-1] / 1e6, 1) for k, v in rss.items() if v}}), flush=True)
        del raw
        rows.append((path, size, events, times, rss))
        runs.append((os.path.basename(path), times, rss))
    load_after = loadavg()

    command = " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:])
    lines = [f"Machine: {machine()}.", f"Load average before / after: {load_before} / {load_after}.",
             f"Command: `{command}`", "",
             "| file | size | events | what | best (s) | median (s) | runs (s) | peak RSS | best vs pickle.loads gc off | gc on |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for path, size, events, times, rss in rows:
        off, on = min(times["loads (gc off)"]), min(times["loads (gc on)"])
        for what, values in times.items():
            if not values:
                continue
            best = min(values)
            peak = f"{max(rss[what]) / 1e6:.1f} MB" if what in rss and rss[what] else ""
            ratio = f"{off / best:.2f}x" if what in rss else ""
            ratio_on = f"{on / best:.2f}x" if what in rss else ""
            lines.append(f"| {os.path.basename(path)} | {size / 1e6:.1f} MB | {events:,} | {what} | {best:.3f} | "
                         f"{statistics.median(values):.3f} | {', '.join(f'{v:.3f}' for v in values)} | {peak} | "
                         f"{ratio} | {ratio_on} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        date = time.strftime("%Y-%m-%d")
        with open(args.out, "w") as f:
            f.write(f"# Snapshot import, whole process, beside pickle.loads ({date})\n\n" + table + "\n")
        with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
            json.dump({"command": command, "date": date, "machine": machine(), "load_before": load_before,
                       "load_after": load_after,
                       "runs": [{"file": name, "seconds": times, "peak_rss_bytes": rss} for name, times, rss in runs]},
                      f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
