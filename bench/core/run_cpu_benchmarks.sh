#!/usr/bin/env bash
# Runs the CPU benchmarks of the core library beside their references, in one run, and writes
# bench/results/cpu-core-<date>.md and .json:
#   - snapshot import (loadTrace, file -> Trace) vs Python's pickle.loads on the same files;
#   - resident bytes per event after import;
#   - LOD query of 2,000 columns over a 10 M-point series;
#   - cold open of a 10 M-event .sawtooth file;
#   - the desktop app, whole process (sawtooth --export-png), when a build of it exists.
# Data (build/bench-data, gitignored) is generated on first use: about 1.2 GB of pickles and a
# 0.4 GB .sawtooth file; the first run spends a few minutes writing them.
#
# Usage: bench/core/run_cpu_benchmarks.sh [--build-dir build/bench] [--data-dir build/bench-data]
#                                    [--runs 3] [--jobs 2] [--gui PATH/TO/sawtooth] [--no-gui]
#                                    [--baseline PATH/TO/older/sawtooth_bench_core --baseline-name REV]
# --baseline runs the same import and open benchmarks with an older build of the program, in the
# same run, for a before/after table.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD=build/bench
DATA=build/bench-data
RUNS=3
JOBS=2
GUI=""
NO_GUI=0
BASELINE=""
BASELINE_NAME="baseline"
COMMAND_LINE="bench/core/run_cpu_benchmarks.sh $*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --data-dir) DATA=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --gui) GUI=$2; shift 2 ;;
    --no-gui) NO_GUI=1; shift ;;
    --baseline) BASELINE=$2; shift 2 ;;
    --baseline-name) BASELINE_NAME=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

STAMP=$(date -u +%Y-%m-%d)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export SAWTOOTH_BENCH_DATA="$ROOT/$DATA"
mkdir -p "$DATA" bench/results

echo "== build ($BUILD, Release)"
if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSAWTOOTH_BUILD_GUI=OFF \
        -DSAWTOOTH_BUILD_RECORDER=OFF -DBUILD_TESTING=ON >/dev/null
fi
ninja -C "$BUILD" -j"$JOBS" sawtooth_bench_core >/dev/null
BENCH="$BUILD/bin/sawtooth_bench_core"

echo "== data ($DATA)"
for spec in 500k:500000 5m:5000000 10m:10000000; do
  name=${spec%%:*}; events=${spec##*:}
  if [[ ! -f "$DATA/snapshot_$name.pickle" ]]; then
    python3 bench/core/gen_snapshot.py --events "$events" --out "$DATA/snapshot_$name.pickle"
  fi
done
# The 10 M-event .sawtooth is written by the benchmark program itself (writeNative) on first use.

echo "== load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# The files in the page cache, as for pickle.loads, which gets its bytes already in memory.
cat "$DATA"/snapshot_500k.pickle "$DATA"/snapshot_5m.pickle >/dev/null

# A fresh process for each first load: what opening a file costs in a new app, page faults and all.
FIRST=()
for name in 500k 5m; do
  echo "== first load in a fresh process ($RUNS processes): snapshot_$name.pickle"
  for ((r = 0; r < RUNS; r++)); do
    "$BENCH" --benchmark_filter="BM_ResidentAfterImport/$name/" --benchmark_format=json \
             --benchmark_out="$OUT/first_${name}_$r.json" --benchmark_out_format=json >/dev/null
    FIRST+=("$OUT/first_${name}_$r.json")
  done
done

echo "== reference: Python pickle.loads ($RUNS runs per file, gc enabled and disabled)"
python3 bench/core/time_pickle_loads.py --runs "$RUNS" "$DATA/snapshot_500k.pickle" "$DATA/snapshot_5m.pickle" \
  | tee "$OUT/pickle_loads.jsonl"

echo "== Sawtooth: repeated loads, parts, LOD, .sawtooth open"
"$BENCH" --benchmark_filter='BM_LoadSnapshot|BM_ReadFile|BM_PickleParse|BM_ImportSnapshotDocument|BM_Lod|BM_OpenNative' \
         --benchmark_out="$OUT/bench.json" --benchmark_out_format=json

BASELINE_ARGS=()
if [[ -n "$BASELINE" ]]; then
  BASELINE_ARGS=(--before-name "$BASELINE_NAME" --before)
  for name in 500k 5m; do
    echo "== before ($BASELINE_NAME): first load in a fresh process ($RUNS processes): snapshot_$name.pickle"
    for ((r = 0; r < RUNS; r++)); do
      "$BASELINE" --benchmark_filter="BM_ResidentAfterImport/$name/" --benchmark_out="$OUT/before_first_${name}_$r.json" \
                  --benchmark_out_format=json >/dev/null
      BASELINE_ARGS+=("$OUT/before_first_${name}_$r.json")
    done
  done
  echo "== before ($BASELINE_NAME): repeated loads, .sawtooth open"
  "$BASELINE" --benchmark_filter='BM_LoadSnapshot|BM_OpenNative' --benchmark_out="$OUT/before_bench.json" \
              --benchmark_out_format=json >/dev/null
  BASELINE_ARGS+=("$OUT/before_bench.json")
fi

# The desktop app, whole process: start, load, lay out, render the PNG, exit.
if [[ $NO_GUI -eq 0 && -z "$GUI" ]]; then
  GUI=$(ls -t build/*/bin/sawtooth 2>/dev/null | head -1 || true)
fi
: >"$OUT/gui.jsonl"
if [[ $NO_GUI -eq 0 && -n "$GUI" && -x "$GUI" ]]; then
  for name in 500k 5m; do
    echo "== GUI whole process: $GUI --export-png ... snapshot_$name.pickle"
    for ((r = 0; r < RUNS; r++)); do
      start=$(date +%s.%N)
      if QT_QPA_PLATFORM=offscreen "$GUI" --export-png "$OUT/gui_$name.png" "$DATA/snapshot_$name.pickle" \
           >/dev/null 2>"$OUT/gui_stderr.txt"; then status=ok; else status=failed; fi
      end=$(date +%s.%N)
      echo "{\"file\": \"snapshot_$name.pickle\", \"binary\": \"$GUI\", \"status\": \"$status\", \"start\": $start, \"end\": $end}" \
        | tee -a "$OUT/gui.jsonl"
    done
  done
else
  echo "== GUI: skipped: no GUI binary"
fi

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 bench/core/make_report.py --out "bench/results/cpu-core-$STAMP" --command "$COMMAND_LINE" \
  --first "${FIRST[@]}" --bench "$OUT/bench.json" \
  --pickle "$OUT/pickle_loads.jsonl" --gui "$OUT/gui.jsonl" --load-before "$LOAD_BEFORE" --load-after "$LOAD_AFTER" \
  --data-dir "$DATA" "${BASELINE_ARGS[@]}"
echo "wrote bench/results/cpu-core-$STAMP.md and .json"
