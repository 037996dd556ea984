#!/usr/bin/env bash
# Any length (issue 25): bench/core/bench_any_length.cpp in one run — recordings written by the real
# writer (25 M and 250 M events by default), opened from their summaries beside today's whole-file
# path, a 1 % window zoomed to, the events table's first page — and, with --upgrade, the same
# recordings written as format 1 and converted. Writes bench/results/cpu-any-length-<date>.md and
# .json with the machine, its load and the command.
#
# Usage: bench/core/run_any_length_benchmark.sh [--build-dir build/bench] [--data-dir build/bench-data]
#                                               [--events 25000000,250000000] [--upgrade] [--keep]
# The recordings take about 48 B an event on disk (250 M: 12 GB; check `df -h` first); they are
# deleted at the end unless --keep.
set -euo pipefail

cd "$(dirname "$0")/../.."
BUILD=build/bench
DATA=build/bench-data
EVENTS=25000000,250000000
UPGRADE=""
KEEP=""
COMMAND_LINE="bench/core/run_any_length_benchmark.sh $*"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) BUILD=$2; shift 2 ;;
    --data-dir) DATA=$2; shift 2 ;;
    --events) EVENTS=$2; shift 2 ;;
    --upgrade) UPGRADE=1; shift ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

STAMP=$(date -u +%Y-%m-%d)
export SAWTOOTH_BENCH_DATA="$PWD/$DATA"
export SAWTOOTH_CACHE_DIR="$PWD/$DATA/cache"
export ANY_LENGTH_EVENTS="$EVENTS"
[[ -n "$UPGRADE" ]] && export ANY_LENGTH_UPGRADE=1
mkdir -p "$DATA" bench/results
if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSAWTOOTH_BUILD_GUI=OFF \
        -DSAWTOOTH_BUILD_RECORDER=OFF -DBUILD_TESTING=OFF >/dev/null
fi
ninja -C "$BUILD" sawtooth_bench_any_length >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
df -h "$DATA" | tail -1
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
"$BUILD/bin/sawtooth_bench_any_length" --benchmark_format=json --benchmark_out="$OUT/run.json" 2>&1 | tee "$OUT/log.txt"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
RESULT="bench/results/cpu-any-length-$STAMP"
python3 - "$OUT/run.json" "$OUT/log.txt" "$RESULT" "$COMMAND_LINE" "$LOAD_BEFORE" "$LOAD_AFTER" <<'PY'
import json, re, sys
run, log, result, command, before, after = sys.argv[1:]
data = json.load(open(run))
written = re.findall(r"wrote (\S+): (\d+) events in ([\d.]+) s \((\d+) steps, (\d+) MB\)", open(log).read())
rows = {}
for b in data["benchmarks"]:
    name, events = b["name"].split("/")[0], int(float(b.get("events", 0)))
    rows.setdefault(events, {})[name] = b
ms = lambda b, k="real_time": f"{b[k]:.0f}" if k in b else "—"
lines = [f"# Any length: open, zoom and first page from the summaries ({data['context']['date'][:10]})", "",
         f"Command: `{command}`", "",
         f"Machine: {data['context'].get('host_name', '')}, {data['context']['num_cpus']} cores; "
         f"load {before} before, {after} after. Wall times (the machine is shared: other work runs beside).", "",
         "| events | file | open → first figures (s) | its peak RSS (MB) | today's path: whole file (s) | its peak RSS (MB) | 1 % window, slowest (ms) | mean (ms) | events table: open + first page, slowest (ms) | a page (ms) | a filter's pass (s) |",
         "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for events, r in sorted(rows.items()):
    o, w, z, p = r.get("BM_OpenFromSummaries", {}), r.get("BM_OpenWhole", {}), r.get("BM_Zoom1Percent", {}), r.get("BM_EventsFirstPage", {})
    f = r.get("BM_EventsFilter", {})
    lines.append(f"| {events / 1e6:.0f} M | {o.get('file_mb', 0) / 1000:.2f} GB | {o.get('real_time', 0) / 1000:.3f} | {o.get('peak_rss_mb', 0):.0f} | "
                 f"{(w['real_time'] / 1000):.1f} | {w['peak_rss_mb']:.0f} |" if w else
                 f"| {events / 1e6:.0f} M | {o.get('file_mb', 0) / 1000:.2f} GB | {o.get('real_time', 0) / 1000:.3f} | {o.get('peak_rss_mb', 0):.0f} | — (does not fit) | — |")
    lines[-1] += (f" {z.get('slowest_ms', 0):.0f} | {z.get('mean_ms', 0):.0f} | {p.get('slowest_ms', 0):.1f} |"
                  f" {p.get('random_page_slowest_ms', 0):.2f} | {f.get('real_time', 0) / 1000:.1f} |")
if any("BM_MomentAtPeak" in r for r in rows.values()):
    lines += ["", "The allocator, live bytes and modules views of the device with the largest peak, each moment replayed from the "
              "file's nearest stored allocator state (open: the file's tables and summaries, then the moment at the peak, in a fresh "
              "process), and the events table sorted by size (one pass keeping the first 100,000 rows, then its first page):", "",
              "| events | open → views at the peak (s) | its peak RSS (MB) | events replayed | a scrubbed moment, slowest (ms) | most replayed | sort by size + first page (s) |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for events, r in sorted(rows.items()):
        a, sc, so = r.get("BM_MomentAtPeak", {}), r.get("BM_MomentScrub", {}), r.get("BM_EventsSortBySize", {})
        lines.append(f"| {events / 1e6:.0f} M | {a.get('real_time', 0) / 1000:.3f} | {a.get('peak_rss_mb', 0):.0f} | {a.get('reads', 0):.0f} | "
                     f"{sc.get('slowest_ms', 0):.0f} | {sc.get('most_replayed', 0):.0f} | {so.get('real_time', 0) / 1000:.1f} |")
if any("BM_Upgrade" in r for r in rows.values()):
    lines += ["", "| events | format 1 → 2 (`convert`, s) | its peak RSS (MB) |", "|---:|---:|---:|"]
    for events, r in sorted(rows.items()):
        if "BM_Upgrade" in r:
            lines.append(f"| {events / 1e6:.0f} M | {r['BM_Upgrade']['real_time'] / 1000:.1f} | {r['BM_Upgrade']['peak_rss_mb']:.0f} |")
if written:
    lines += ["", "Recordings written by the writer for this run: " + "; ".join(f"{int(n):,} events ({int(k):,} steps, {mb} MB) in {s} s" for _, n, s, k, mb in written) + "."]
open(result + ".md", "w").write("\n".join(lines) + "\n")
json.dump({"command": command, "load_before": before, "load_after": after, "benchmarks": data["benchmarks"]},
          open(result + ".json", "w"), indent=1)
print("\n".join(lines))
PY
if [[ -z "$KEEP" ]]; then
  rm -f "$DATA"/any_length_*.sawtooth*
  rm -rf "$DATA/cache"
fi
