#!/usr/bin/env bash
# Does a fuzzer at a given budget find a bug again? Runs FUZZER RUNS times (-seed=1..RUNS), each
# for at most CPU_SECONDS of CPU time (ulimit -t: CTest runs the fuzzers one after the other, so in
# CI each has a core to itself and its 60 s are 60 CPU-seconds; on a loaded machine wall time would
# give it less), with CTest's options (fuzz/CMakeLists.txt), from the committed seeds of NAME less
# every input a fuzzer or a review found (regression-*, timeout-*, crash-*: the bug's own input is
# not among the seeds), into a fresh corpus each run. One line per run: what it found, after how
# many CPU-seconds and inputs. With FIXED (the same fuzzer built with the fix), each input found is
# run again there: "gone with the fix" says that the find is the bug reverted, not another one.
# Usage: fuzz/measure_budget.sh NAME FUZZER CPU_SECONDS RUNS OUT [FIXED]
#   e.g. fuzz/measure_budget.sh jax_profile build/fuzz/bin/fuzz_jax_profile 120 5 /tmp/m /tmp/fixed/fuzz_jax_profile
set -u
cd "$(dirname "$0")/.."
name=${1:?usage: measure_budget.sh NAME FUZZER CPU_SECONDS RUNS OUT [FIXED]}
fuzzer=$(realpath "${2:?}")
seconds=${3:?}
runs=${4:?}
out=${5:?}
fixed=${6:-}
mkdir -p "$out/seeds"
find "fuzz/corpus/$name" -maxdepth 1 -type f ! -name 'regression-*' ! -name 'timeout-*' ! -name 'crash-*' \
  -exec cp {} "$out/seeds/" \;
echo "$name: $(ls "$out/seeds" | wc -l) seeds, at most ${seconds} CPU-s a run, $runs runs, $(date -u +%H:%M:%S)," \
     "load $(cut -d' ' -f1 /proc/loadavg)"
found=0
for seed in $(seq "$runs"); do
  run="$out/run-$seed"
  rm -rf "$run" && mkdir -p "$run/corpus" "$run/artifacts"
  # SIGXCPU ends the run at the budget; the wall-time limit only bounds a run starved of CPU.
  (ulimit -t "$seconds"
   exec /usr/bin/time -f '%U %S %e' -o "$run/time" "$fuzzer" -seed="$seed" -max_total_time=$((seconds * 20)) \
     -timeout=10 -rss_limit_mb=2048 -max_len=16384 -dict="fuzz/$name.dict" -artifact_prefix="$run/artifacts/" \
     -print_final_stats=1 -verbosity=0 -print_funcs=0 "$run/corpus" "$out/seeds") > "$run/log" 2>&1
  read -r user sys wall < <(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$run/time")
  cpu=$(echo "${user:-0} + ${sys:-0}" | bc)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$run/log" | grep -o '[0-9]*$' | tail -1)
  input=$(ls "$run/artifacts" | head -1)
  if [ -z "$input" ]; then
    printf 'run %d: nothing found in %.0f CPU-s (%.0f s wall, %s inputs)\n' "$seed" "$cpu" "${wall:-0}" "${execs:-?}"
    continue
  fi
  found=$((found + 1))
  what=$(grep -m1 -oE 'runtime error: .{0,70}|disagree: .{0,50}|more events .{0,40}|ERROR: [A-Za-z]+: [a-z -]+' "$run/log" | head -1)
  verdict=""
  if [ -n "$fixed" ]; then
    if "$fixed" "$run/artifacts/$input" > "$run/fixed.log" 2>&1; then verdict=", gone with the fix"; else verdict=", STILL FAILS with the fix"; fi
  fi
  printf 'run %d: found %s after %.1f CPU-s (%.0f s wall, %s inputs): %s%s\n' "$seed" "$input" "$cpu" "${wall:-0}" \
    "${execs:-?}" "$what" "$verdict"
done
echo "$name: found in $found of $runs runs"
