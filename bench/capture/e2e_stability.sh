#!/usr/bin/env bash
# Issue 26: the end-to-end tests that wait on other processes (the recorder, a recorded program, the
# app's jobs), N rounds each under a parallel CPU load of one busy loop per core, to show that they
# wait on conditions, not on time. Prints one line per round and a summary; exit 1 if any round failed.
# Usage: bench/capture/e2e_stability.sh BUILD_DIR [ROUNDS [app|program]]   (BUILD_DIR from the ci preset;
#        the third argument runs one of the two sets only)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: e2e_stability.sh BUILD_DIR [ROUNDS]}
rounds=${2:-20}
which=${3:-both}
python=$(scripts/torch-venv-path.sh)/bin/python
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$out"' EXIT

# The load runs at the lowest priority: on a machine already busy (other builds) it only fills idle cores.
for _ in $(seq "$(nproc)"); do nice -n 19 bash -c 'while :; do :; done' & done
echo "load: $(nproc) busy loops beside the tests, load average $(cut -d' ' -f1 /proc/loadavg); $(date -u +%H:%M:%S)"

# The cases that wait on a running recorder (growth, cancel, kill, close), not those that only read its result.
app_cases=(cancelKeepsThePartialTrace theTimelineGrowsWhileTheRecordingRuns aKilledRecorderLeavesTheAppAlive
           closingTheWindowStopsItsRecording)
app_failed=0
app_rounds=$rounds
[ "$which" = program ] && app_rounds=0
for r in $(seq "$app_rounds"); do
  t0=$SECONDS
  if QT_QPA_PLATFORM=offscreen QTEST_FUNCTION_TIMEOUT=600000 "$build/bin/app_workload_run_test" "${app_cases[@]}" > "$out/app.log" 2>&1; then
    echo "app_workload_run_test round $r/$rounds: ok in $((SECONDS - t0)) s"
  else
    app_failed=$((app_failed + 1))
    echo "app_workload_run_test round $r/$rounds: FAILED in $((SECONDS - t0)) s"
    grep -E "^FAIL|Loc:" "$out/app.log" | head -6
  fi
done

program_rounds=$rounds
[ "$which" = app ] && program_rounds=0
t0=$SECONDS
[ "$program_rounds" -gt 0 ] && python3 tests/tools/check_program_recording.py "$build/bin/sawtooth-record" "$build/bin/sawtooth-trace" "$python" "$out/program" \
  --only stop_through_recorder,stop_busy,ctrl_c_in_terminal,sigkill_program --repeat "$program_rounds" > "$out/program.log" 2>&1
program_rc=$?
[ "$program_rounds" -gt 0 ] || { program_rc=0; : > "$out/program.log"; }
grep -E "^round|^FAIL" "$out/program.log"
program_failed=$(grep -c "FAILED$" "$out/program.log")
echo "recorder.program cases (stop, busy stop ×3, Ctrl+C at a terminal, SIGKILL): $((SECONDS - t0)) s"
echo "summary: app_workload_run_test $((app_rounds - app_failed))/$app_rounds rounds passed (${#app_cases[@]} cases each);" \
     "recorder.program $((program_rounds - program_failed))/$program_rounds rounds passed (6 recordings each); $(date -u +%H:%M:%S)"
[ "$app_failed" -eq 0 ] && [ "$program_rc" -eq 0 ]
