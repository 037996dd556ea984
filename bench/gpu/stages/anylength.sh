# Stages for any length (issue 25), sourced by bench/gpu/run_gpu.sh (needs `build` with
# sawtooth-record and sawtooth-trace; the recorder stages' recorder_run).
#   anylength_h200  the anatomy workload for 100,000 timed steps unrecorded (capture none) and
#                   recorded (capture all), one after the other: wall and step-time ratio (target
#                   <= 1.02); the recording's file size against today's (188 MB for 20,000 steps in
#                   the issue: a 20,000-step recording is made too); then the 100,000-step file
#                   opened from its summaries (`info --summaries`: wall and peak RSS, targets 0.5 s
#                   and 300 MB) beside the whole-file `info` (wall and peak RSS), and `check`.
#                   About 8 minutes on one H200.
ANYLENGTH_STEPS=${ANYLENGTH_STEPS:-100000}
ANYLENGTH_SMALL=${ANYLENGTH_SMALL:-20000}

# measured LABEL COMMAND... : wall seconds and peak RSS of one command, from GNU time or Python.
measured() {
  local label=$1
  shift
  python3 - "$label" "$@" <<'PY'
import resource, subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
r = subprocess.run(cmd, capture_output=True, text=True)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{label}: exit {r.returncode}, wall {wall:.3f} s, peak RSS {rss:.0f} MB")
print("  " + "\n  ".join((r.stdout + r.stderr).strip().splitlines()[:24]))
PY
}

stage_anylength_h200() {
  uptime
  export SAWTOOTH_CACHE_DIR=$OUT/cache
  recorder_run "$ANYLENGTH_STEPS" none 0
  recorder_run "$ANYLENGTH_STEPS" all 0
  recorder_run "$ANYLENGTH_SMALL" all 0
  uptime
  python3 bench/gpu/recorder_summary.py "$R/anylength-long.json" $(cat "$R"/long-*.spec) | tee "$R/anylength-long.txt"
  local big="$R/long-$ANYLENGTH_STEPS-all-gpu0.sawtooth" small="$R/long-$ANYLENGTH_SMALL-all-gpu0.sawtooth"
  ls -l "$big" "$small" | tee "$R/anylength-sizes.txt"
  sync
  for i in 1 2 3; do measured "info --summaries (round $i)" $TRACE info --summaries "$big"; done | tee "$R/anylength-open.txt"
  measured "info --summaries --json" $TRACE info --summaries --json "$big" > "$R/anylength-summaries.txt"
  measured "info, the whole file" timeout 300 $TRACE info "$big" | tee -a "$R/anylength-open.txt"
  measured "check (every event against the summaries)" timeout 300 $TRACE check "$big" | tee -a "$R/anylength-open.txt"
  rm -f "$R"/long-*.sawtooth "$R"/long-*.sawtooth-wal "$R"/long-*.sawtooth-shm "$R"/long-*.spec
  rm -rf "$OUT/cache"
}
