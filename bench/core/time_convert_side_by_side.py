#!/usr/bin/env python3
"""Converting a PyTorch snapshot to .sawtooth (issue 25, item 4), side by side with Python's own
`pickle.load` of the same file, interleaved round by round so that both see the same machine load,
each a new process timed by its parent with GNU time (wall time and peak resident memory):

  - `python3 -c 'pickle.load(open(FILE, "rb"))'`  the reference: reading and unpickling the file;
  - `sawtooth-trace convert FILE OUT.sawtooth`     read, check, write the events and the summaries;
  - `sawtooth_bench_any_length --child summaries OUT.sawtooth`  then opening the converted file from
    its summaries (every series drawn at 2,000 columns, the stacked categories, the peaks);

and once `sawtooth-trace check OUT.sawtooth` (the summaries against the events). Targets: convert
at most 2x pickle.load's time and 1 GB peak RSS.

Usage: time_convert_side_by_side.py --tool build/x/bin/sawtooth-trace --bench build/x/bin/sawtooth_bench_any_length
                                    [--runs 3] [--out bench/results/NAME.md] FILE...
Python standard library only.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time


def run_process(argv):
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name, *argv], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        out, err = proc.communicate()
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{argv}: exit {proc.returncode}: {err.decode(errors='replace').strip()[-300:]}")
        return seconds, int(rss.read().split()[-1]) * 1024, out.decode(errors="replace")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True, help="sawtooth-trace")
    parser.add_argument("--bench", required=True, help="sawtooth_bench_any_length")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", help="write NAME.md and NAME.json")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    command = " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:])
    load_before = os.getloadavg()
    rows = []
    for path in args.files:
        size = os.path.getsize(path)
        with open(path, "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass
        out = path + ".converted.sawtooth"
        runs = {"pickle.load": [], "convert": [], "open": []}
        for _ in range(args.runs):
            runs["pickle.load"].append(run_process(
                [sys.executable, "-c", "import pickle,sys; pickle.load(open(sys.argv[1], 'rb'))", path])[:2])
            runs["convert"].append(run_process([args.tool, "convert", path, out])[:2])
            runs["open"].append(run_process([args.bench, "--child", "summaries", out])[:2])
        # What the figures are (before `check`, which reads every event again: long at 20 M).
        print(json.dumps({"file": os.path.basename(path), "runs": runs}), flush=True)
        check_run = subprocess.run([args.tool, "check", out], capture_output=True, text=True)
        check = (check_run.stdout + check_run.stderr).strip()
        if check_run.returncode != 0:
            check = f"exit {check_run.returncode}: {check}"
        converted = os.path.getsize(out)
        os.remove(out)
        row = {"file": os.path.basename(path), "bytes": size, "converted_bytes": converted, "check": check}
        for what, values in runs.items():
            row[what] = {"seconds": [round(s, 3) for s, _ in values], "rss_mb": [round(r / 2**20, 1) for _, r in values],
                         "median_seconds": round(statistics.median(s for s, _ in values), 3),
                         "max_rss_mb": round(max(r for _, r in values) / 2**20, 1)}
        row["convert_over_pickle"] = round(row["convert"]["median_seconds"] / row["pickle.load"]["median_seconds"], 2)
        rows.append(row)
        print(json.dumps(row), flush=True)

    table = ["| file | size | pickle.load s (RSS MB) | convert s (RSS MB) | convert ÷ pickle.load | open converted s (RSS MB) | check |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        cell = lambda k: f"{r[k]['median_seconds']:.2f} ({r[k]['max_rss_mb']:.0f})"
        table.append(f"| {r['file']} | {r['bytes'] / 1e9:.2f} GB | {cell('pickle.load')} | {cell('convert')} | "
                     f"{r['convert_over_pickle']:.2f} | {cell('open')} | {r['check']} |")
    print("\n".join(table))
    if args.out:
        base = args.out[:-3] if args.out.endswith(".md") else args.out
        machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
        with open(base + ".md", "w") as f:
            f.write(f"# PyTorch snapshot to .sawtooth beside pickle.load ({time.strftime('%Y-%m-%d')})\n\n")
            f.write(f"Command: `{command}`\n\nMachine: {machine}; load {load_before} before, {os.getloadavg()} after.\n\n")
            f.write("Medians of the runs; RSS is the peak of each process (GNU time).\n\n")
            f.write("\n".join(table) + "\n")
        with open(base + ".json", "w") as f:
            json.dump({"command": command, "machine": machine, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
