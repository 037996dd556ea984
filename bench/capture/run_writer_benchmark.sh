#!/usr/bin/env bash
# The recorder's writer beside its physical references, in one run, interleaved round by round:
# bench/capture/bench_writer.cpp's BM_Writer (the writer's whole path), BM_RawSqlite (the same rows with
# the plain SQLite C API), BM_WriteBytes (write() of the same bytes) and BM_KernelPath (time per
# step at 2,000 to 16,000 steps). Times are the writer thread's CPU time (user + system): on a
# shared machine wall time measures the other processes too. Writes
# bench/results/cpu-writer-<date>.md and .json with the machine, its load and the command.
#
# Usage: bench/capture/run_writer_benchmark.sh [--build-dir build/bench] [--data-dir build/bench-data]
#                                      [--rounds 3] [--jobs 2] [--baseline PATH --baseline-name REV]
# --baseline runs BM_KernelPath of an older build (same benchmark, that revision's writer) in the
# same rounds, for a before/after table.
set -euo pipefail

cd "$(dirname "$0")/../.."
BUILD=build/bench
DATA=build/bench-data
ROUNDS=3
JOBS=2
BASELINE=""
BASELINE_NAME="baseline"
COMMAND_LINE="bench/capture/run_writer_benchmark.sh $*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --data-dir) DATA=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --baseline) BASELINE=$2; shift 2 ;;
    --baseline-name) BASELINE_NAME=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

STAMP=$(date -u +%Y-%m-%d)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export SAWTOOTH_BENCH_DATA="$PWD/$DATA"
mkdir -p "$DATA" bench/results

if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSAWTOOTH_BUILD_GUI=OFF \
        -DSAWTOOTH_BUILD_RECORDER=OFF -DBUILD_TESTING=OFF >/dev/null
fi
ninja -C "$BUILD" -j"$JOBS" sawtooth_bench_writer >/dev/null
BENCH="$BUILD/bin/sawtooth_bench_writer"

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round of $ROUNDS (load $(cut -d' ' -f1-3 /proc/loadavg))"
  "$BENCH" --benchmark_filter='BM_(Writer|RawSqlite|WriteBytes|ChunkedSqlite)' --benchmark_format=json \
    --benchmark_out="$OUT/io-$round.json" >/dev/null
  "$BENCH" --benchmark_filter=BM_KernelPath --benchmark_format=json --benchmark_out="$OUT/kernels-$round.json" >/dev/null
  if [[ -n "$BASELINE" ]]; then
    "$BASELINE" --benchmark_filter=BM_KernelPath --benchmark_format=json \
      --benchmark_out="$OUT/baseline-$round.json" >/dev/null
  fi
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$DATA"/writer.sawtooth "$DATA"/raw.sqlite "$DATA"/bytes.bin "$DATA"/kernels.sawtooth "$DATA"/chunked.sqlite

python3 - "$OUT" "bench/results/cpu-writer-$STAMP" "$COMMAND_LINE" "$LOAD_BEFORE" "$LOAD_AFTER" "$BASELINE_NAME" <<'EOF'
import glob, json, os, platform, re, statistics, subprocess, sys
out, dest, command, load_before, load_after, baseline_name = sys.argv[1:7]

def runs(pattern):
    rows = {}
    for path in sorted(glob.glob(os.path.join(out, pattern))):
        for b in json.load(open(path))["benchmarks"]:
            # "BM_Writer/iterations:1/manual_time" -> "BM_Writer"; "BM_KernelPath/steps:2000/..." keeps its steps.
            rows.setdefault(re.sub(r"/(iterations:\d+|manual_time)", "", b["name"]), []).append(b)
    return rows

io = runs("io-*.json")
kernels = runs("kernels-*.json")
baseline = runs("baseline-*.json")
med = lambda rows, key: statistics.median(r[key] for r in rows)
writer_s = med(io["BM_Writer"], "real_time") / 1e3
raw_s = med(io["BM_RawSqlite"], "real_time") / 1e3
bytes_s = med(io["BM_WriteBytes"], "real_time") / 1e3
chunked_s = med(io["BM_ChunkedSqlite"], "real_time") / 1e3
events = io["BM_ChunkedSqlite"][0]["events"]
records = io["BM_Writer"][0]["records"]
rows = io["BM_Writer"][0]["rows"]
file_bytes = io["BM_Writer"][0]["file_bytes"]
cpu = subprocess.run(["sh", "-c", "lscpu | grep 'Model name' | sed 's/.*: *//'"], capture_output=True, text=True).stdout.strip()
summary = {
    "command": command, "machine": f"{cpu}, {os.cpu_count()} cores", "load_before": load_before, "load_after": load_after,
    "writer_records": records, "writer_rows": rows, "file_bytes": file_bytes,
    "writer_cpu_s": writer_s, "raw_sqlite_cpu_s": raw_s, "write_bytes_cpu_s": bytes_s,
    "writer_records_per_s": records / writer_s, "writer_rows_per_s": rows / writer_s,
    "raw_sqlite_rows_per_s": rows / raw_s, "write_bytes_per_s": file_bytes / bytes_s,
    "writer_over_raw_sqlite": writer_s / raw_s, "writer_over_write": writer_s / bytes_s,
    "chunked_sqlite_cpu_s": chunked_s, "chunked_sqlite_events_per_s": events / chunked_s,
    "rounds": {k: [r["real_time"] for r in v] for k, v in io.items()},
    "kernel_path_us_per_step": {k: [r["us_per_step"] for r in v] for k, v in kernels.items()},
    "baseline_kernel_path_us_per_step": {k: [r["us_per_step"] for r in v] for k, v in baseline.items()},
}
json.dump(summary, open(dest + ".json", "w"), indent=1)
lines = [f"# The recorder's writer beside raw SQLite and write() ({os.path.basename(dest)[11:]})", "",
         f"Machine: {summary['machine']}, shared with other builds (load {load_before} before, {load_after} after).",
         "Times are the writer thread's CPU time (user + system), the median of the rounds: on a shared",
         "machine wall time measures the other processes too.", "", f"Command: `{command}`", "",
         "| what | CPU s | rate | writer ÷ it |", "|---|---:|---:|---:|",
         f"| writer, whole path (`BM_Writer`): {records:,.0f} records → {rows:,.0f} rows, {file_bytes / 2**20:.1f} MiB | "
         f"{writer_s:.3f} | {records / writer_s / 1e6:.2f} M records/s ({rows / writer_s / 1e6:.2f} M rows/s) | 1 |",
         f"| raw SQLite, the same rows (`BM_RawSqlite`) | {raw_s:.3f} | {rows / raw_s / 1e6:.2f} M rows/s | "
         f"{writer_s / raw_s:.2f} |",
         f"| `write()` of the same bytes (`BM_WriteBytes`) | {bytes_s:.3f} | {file_bytes / bytes_s / 2**20:.0f} MiB/s | "
         f"{writer_s / bytes_s:.1f} |",
         f"| a columnar layout in SQLite, the same events (`BM_ChunkedSqlite`, not the file format) | {chunked_s:.3f} | "
         f"{events / chunked_s / 1e6:.1f} M events/s | {writer_s / chunked_s:.1f} |", "",
         "Kernel path (`BM_KernelPath`: 50 kernels and 4 phases a step, delivered late as CUPTI's are), µs per step:", "",
         "| steps | this writer |" + (f" {baseline_name} |" if baseline else ""),
         "|---:|---:|" + ("---:|" if baseline else "")]
for name, rows_ in kernels.items():
    steps = name.split("steps:")[1].split("/")[0]
    line = f"| {int(steps):,} | {med(rows_, 'us_per_step'):.1f} |"
    if baseline:
        b = [v for k, v in baseline.items() if f"steps:{steps}/" in k + "/"]
        line += f" {med(b[0], 'us_per_step'):.1f} |" if b else " – |"
    lines.append(line)
open(dest + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
