#!/usr/bin/env bash
# The recorder's writer at the anatomy workload's record mix (bench/capture/bench_writer_anatomy.cpp),
# this tree's writer beside older ones in the same rounds, interleaved: each revision given with
# --rev REV (repeatable) is exported with `git archive` into build/anatomy-REV/src, gets the same
# benchmark source and a target for it, and is built there (RelWithDebInfo, no GUI, no recorder).
# A revision before the writer moved to capture/ (e.g. 4fcc96d, 2026-11-30) has neither summaries
# nor module records: the benchmark runs it as "summaries:0/modules:0" only.
# Times are the writer thread's CPU time per step over the first and the last tenth of the steps
# (a writer whose work per record does not grow with the recording has the same two).
# Writes bench/results/cpu-writer-anatomy-<date>.md and .json with the machine, its load and the command.
#
# Usage: bench/capture/run_writer_anatomy.sh [--build-dir build/bench] [--rounds 2] [--jobs 2]
#            [--rev REV[=FILTER]]... [--bin NAME=PATH[=FILTER]]... [--filter REGEX]
# --bin: a benchmark binary built already from another checkout (the same source), named NAME.
# FILTER (a Google Benchmark filter) limits what an older revision runs (a writer that is quadratic
# in the recording's length takes hours at 20,000 steps); --filter limits this tree's.
set -euo pipefail

cd "$(dirname "$0")/../.."
BUILD=build/bench
ROUNDS=2
JOBS=2
FILTER='BM_AnatomyMix'
REVS=()
PREBUILT=()
COMMAND_LINE="bench/capture/run_writer_anatomy.sh $*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --rev) REVS+=("$2"); shift 2 ;;
    --bin) PREBUILT+=("$2"); shift 2 ;;
    --filter) FILTER=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

configure() {  # source dir, build dir
  if [[ ! -f "$2/build.ninja" ]]; then
    cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSAWTOOTH_BUILD_GUI=OFF \
          -DSAWTOOTH_BUILD_RECORDER=OFF -DBUILD_TESTING=OFF >/dev/null
  fi
}

NAMES=(this)
BINS=()
FILTERS=("$FILTER")
configure . "$BUILD"
nice ninja -C "$BUILD" -j"$JOBS" sawtooth_bench_writer_anatomy >/dev/null
BINS+=("$BUILD/bin/sawtooth_bench_writer_anatomy")
for spec in "${REVS[@]}"; do
  rev=${spec%%=*}
  filter=BM_AnatomyMix
  [[ "$spec" == *=* ]] && filter=${spec#*=}
  short=$(git rev-parse --short "$rev")
  dir=build/anatomy-$short
  if [[ ! -d "$dir/src" ]]; then
    mkdir -p "$dir/src"
    git archive "$short" | tar -x -C "$dir/src"
    # The same benchmark source; a revision that has the benchmark's target already keeps it.
    mkdir -p "$dir/src/bench/capture"
    cp bench/capture/bench_writer_anatomy.cpp "$dir/src/bench/capture/"
    cp bench/capture/bench_writer_anatomy.cpp "$dir/src/bench/"
    grep -q 'sawtooth_bench_writer_anatomy' "$dir/src/bench/CMakeLists.txt" || cat >>"$dir/src/bench/CMakeLists.txt" <<'EOF'

# Added by bench/capture/run_writer_anatomy.sh: the anatomy-mix benchmark on this revision's writer.
add_executable(sawtooth_bench_writer_anatomy bench_writer_anatomy.cpp)
target_link_libraries(sawtooth_bench_writer_anatomy PRIVATE sawtooth_capture benchmark::benchmark
                                                            benchmark::benchmark_main)
EOF
  fi
  # (built two levels below its sources, as a checkout's build/NAME: ccache finds its objects)
  configure "$dir/src" "$dir/src/build/bench"
  nice ninja -C "$dir/src/build/bench" -j"$JOBS" sawtooth_bench_writer_anatomy >/dev/null
  NAMES+=("$short")
  BINS+=("$dir/src/build/bench/bin/sawtooth_bench_writer_anatomy")
  FILTERS+=("$filter")
done

for spec in "${PREBUILT[@]}"; do
  IFS='=' read -r name path filter <<<"$spec"
  NAMES+=("$name")
  BINS+=("$path")
  FILTERS+=("${filter:-BM_AnatomyMix}")
done

STAMP=$(date -u +%Y-%m-%d)
OUT=$(mktemp -d)
DATA=$(mktemp -d -p build)
trap 'rm -rf "$OUT" "$DATA"' EXIT
export SAWTOOTH_BENCH_DATA="$PWD/$DATA"
mkdir -p bench/results
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq 1 "$ROUNDS"); do
  for i in "${!BINS[@]}"; do
    echo "== round $round of $ROUNDS: ${NAMES[$i]} (load $(cut -d' ' -f1-3 /proc/loadavg))"
    "${BINS[$i]}" --benchmark_filter="${FILTERS[$i]}" --benchmark_format=json \
      --benchmark_out="$OUT/${NAMES[$i]}-$round.json" >/dev/null
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$OUT" "bench/results/cpu-writer-anatomy-$STAMP" "$COMMAND_LINE" "$LOAD_BEFORE" "$LOAD_AFTER" \
  "$(git rev-parse --short HEAD)" "${NAMES[@]}" <<'EOF'
import glob, json, os, re, statistics, subprocess, sys
out, dest, command, load_before, load_after, head = sys.argv[1:7]
names = sys.argv[7:]
rows = {}  # (name, config) -> [benchmark]
for name in names:
    for path in sorted(glob.glob(os.path.join(out, f"{name}-*.json"))):
        for b in json.load(open(path))["benchmarks"]:
            config = re.sub(r"^BM_AnatomyMix/|/iterations:\d+|/manual_time", "", b["name"])
            rows.setdefault((name, config), []).append(b)
med = lambda bs, key: statistics.median(b[key] for b in bs)
cpu = subprocess.run(["sh", "-c", "lscpu | grep 'Model name' | sed 's/.*: *//'"], capture_output=True, text=True).stdout.strip()
label = {"this": f"this tree ({head})"}
summary = {"command": command, "machine": f"{cpu}, {os.cpu_count()} cores", "load_before": load_before,
           "load_after": load_after, "results": []}
lines = [f"# The writer at the anatomy's record mix ({os.path.basename(dest)[19:]})", "",
         f"Machine: {summary['machine']}, shared with other builds (load {load_before} before, {load_after} after).",
         "The writer thread's CPU time per step (µs), the median of the rounds, over the first and the last",
         "tenth of the steps; records include the kernels.", "", f"Command: `{command}`", "",
         "| writer | steps | summaries | module records | records | µs/step, first tenth | µs/step, last tenth | "
         "µs/step, all | file MiB |", "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
def key(item):
    (name, config), _ = item
    steps, summ, mods = (int(x) for x in re.findall(r":(\d+)", config))
    return (steps, summ, mods, names.index(name))
for (name, config), bs in sorted(rows.items(), key=key):
    steps, summ, mods = (int(x) for x in re.findall(r":(\d+)", config))
    r = {"writer": label.get(name, name), "steps": steps, "summaries": summ, "modules": mods,
         "records": bs[0]["records"], "us_per_step_first": med(bs, "us_per_step_first"),
         "us_per_step_last": med(bs, "us_per_step_last"), "us_per_step": med(bs, "us_per_step"),
         "file_bytes": bs[0]["file_bytes"], "rounds": [b["us_per_step"] for b in bs]}
    summary["results"].append(r)
    lines.append(f"| {r['writer']} | {steps:,} | {'none' if not summ else 'format 3'} | {'yes' if mods else 'no'} | "
                 f"{r['records']:,.0f} | {r['us_per_step_first']:.0f} | {r['us_per_step_last']:.0f} | "
                 f"{r['us_per_step']:.0f} | {r['file_bytes'] / 2**20:.1f} |")
json.dump(summary, open(dest + ".json", "w"), indent=1)
open(dest + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
