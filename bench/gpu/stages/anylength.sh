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

#   anylength_app   the anatomy workload recorded for 100,000 timed steps, then that file opened in
#                   the app (its MainWindow offscreen, bench/gui/timeline_open.cpp) ANYLENGTH_APP_ROUNDS
#                   times (3 unless set): first
#                   paint, peak RSS, 1 % zooms and the GUI thread's longest stall (targets 0.5 s, 300 MB,
#                   100 ms, 50 ms). Needs .gpu-app (scripts/make-gpu-app.sh: the benchmark and its Qt,
#                   built on Debian 12) carried beside .gpu-deps. With .gpu-app/baseline.xz
#                   (make-gpu-app.sh --baseline) each round runs the baseline, then the current one.
#                   About 4 minutes on one H200.
stage_anylength_app() {
  uptime
  local app=/tmp/sawtooth-gpu-app
  rm -rf "$app" && mkdir -p "$app" && tar xJf .gpu-app/app.tar.xz -C "$app"
  local builds="$app/app/sawtooth_timeline_open"
  if [ -f .gpu-app/baseline.xz ]; then
    xz -dc .gpu-app/baseline.xz > "$app/app/baseline" && chmod +x "$app/app/baseline"
    builds="$app/app/baseline $builds"
  fi
  export SAWTOOTH_CACHE_DIR=$OUT/cache
  recorder_run "$ANYLENGTH_STEPS" all 0
  local big="$R/long-$ANYLENGTH_STEPS-all-gpu0.sawtooth"
  ls -l "$big" | tee "$R/app-open-size.txt"
  sync
  for i in $(seq "${ANYLENGTH_APP_ROUNDS:-3}"); do
    for build in $builds; do
      echo "## round $i: $(basename "$build")"
      HOME=$app/home QT_QPA_PLATFORM=offscreen LD_LIBRARY_PATH=$app/app/lib QT_PLUGIN_PATH=$app/app/plugins \
        timeout 300 "$build" "$big" 2>&1 | grep -v "^QFont\|propagateSizeHints" | head -40
    done
  done | tee "$R/app-open.txt"
  rm -f "$R"/long-*.sawtooth "$R"/long-*.sawtooth-wal "$R"/long-*.sawtooth-shm "$R"/long-*.spec
  rm -rf "$OUT/cache"
}

#   anylength_moments  the anatomy workload recorded for 100,000 timed steps (and 20,000 for a diff),
#                   then what the app's allocator, live bytes and modules views and `segments`,
#                   `modules` and `diff` read of it from its summaries (--summaries: the nearest stored
#                   allocator state and the events after it) beside the same commands reading the
#                   whole file: wall and peak RSS of each, three rounds of the summaries' path, and the
#                   two JSON outputs compared. About 5 minutes on one H200.
stage_anylength_moments() {
  uptime
  export SAWTOOTH_CACHE_DIR=$OUT/cache
  recorder_run "$ANYLENGTH_STEPS" all 0
  recorder_run "$ANYLENGTH_SMALL" all 0
  local big="$R/long-$ANYLENGTH_STEPS-all-gpu0.sawtooth" small="$R/long-$ANYLENGTH_SMALL-all-gpu0.sawtooth"
  ls -l "$big" "$small" | tee "$R/moments-sizes.txt"
  sync
  {
    for i in 1 2 3; do
      measured "segments --summaries at the end (round $i)" $TRACE segments --summaries "$big"
      measured "modules --summaries at the peak (round $i)" $TRACE modules --summaries --depth 1 "$big"
    done
    measured "diff --summaries (100,000 against 20,000 steps)" $TRACE diff --summaries "$big" "$small"
    measured "diff --summaries --totals (one pass over each file's events)" $TRACE diff --summaries --totals "$big" "$small"
    measured "segments, the whole file" timeout 300 $TRACE segments "$big"
    measured "modules, the whole file" timeout 300 $TRACE modules --depth 1 "$big"
    measured "diff, the whole files" timeout 300 $TRACE diff "$big" "$small"
  } | tee "$R/moments-open.txt"
  # The same figures both ways.
  $TRACE segments --summaries --json "$big" > "$R/moments-segments-summaries.json"
  timeout 300 $TRACE segments --json "$big" > "$R/moments-segments-whole.json"
  $TRACE modules --summaries --json "$big" > "$R/moments-modules-summaries.json"
  timeout 300 $TRACE modules --json "$big" > "$R/moments-modules-whole.json"
  $TRACE diff --summaries --totals --json "$big" "$small" > "$R/moments-diff-summaries.json"
  timeout 300 $TRACE diff --json "$big" "$small" > "$R/moments-diff-whole.json"
  python3 - "$R" <<'PY' | tee "$R/moments-agree.txt"
import json, sys
r = sys.argv[1]
load = lambda name: json.load(open(f"{r}/moments-{name}.json"))
s, w = load("segments-summaries"), load("segments-whole")
for ds, dw in zip(s["devices"], w["devices"]):
    same = all(ds.get(k) == dw.get(k) for k in ("event_index", "segments", "reserved_bytes", "allocated_bytes", "requested_bytes"))
    print(f"segments {ds['device']}: {'the same' if same else 'DIFFERENT'} ({len(ds.get('segments', []))} segments, "
          f"event {ds.get('event_index')})")
s, w = load("modules-summaries"), load("modules-whole")
own = lambda m: {row["name"]: row["self"] for row in m["modules"]}
print(f"modules: {'the same' if own(s) == own(w) and s['live_bytes'] == w['live_bytes'] else 'DIFFERENT'} "
      f"({len(s['modules'])} rows, {s['live_bytes']} B live at event {s['event_index']})")
# Costs over the peak's step beside the whole file's (every step): calls and largest rises.
print(f"module costs --summaries: {s.get('costs_scope')!r} {s.get('costs_unknown')!r}")
whole_rows = {row["name"]: row for row in w["modules"]}
for row in s["modules"][:8]:
    wr = whole_rows.get(row["name"], {})
    if "forward" not in row:
        continue
    print(f"  {row['name']}: forward {row['forward']['calls']} call(s) {row['forward']['time_ns']} ns rise "
          f"{row['forward']['peak_increment']} | whole {wr['forward']['calls']} calls rise {wr['forward']['peak_increment']}; "
          f"backward rise {row['backward']['peak_increment']} | whole {wr['backward']['peak_increment']}")
s, w = load("diff-summaries"), load("diff-whole")
totals = lambda d: {(x["site"], x["category"]): (x["a_total_allocated"], x["b_total_allocated"]) for x in d["sites"]}
print(f"diff totals: {'the same' if totals(s) == totals(w) and s['a']['total_allocated'] == w['a']['total_allocated'] else 'DIFFERENT'} "
      f"({len(s['sites'])} rows; A allocated {s['a']['total_allocated']} B in all)")
PY
  rm -f "$R"/long-*.sawtooth "$R"/long-*.sawtooth-wal "$R"/long-*.sawtooth-shm "$R"/long-*.spec
  rm -rf "$OUT/cache"
}

# anylength_oom: `sawtooth-trace oom` read whole and from the summaries. A Python run that trains
# 20,000 steps then grows its batch until the allocator fails (bench/gpu/allocator/
# oom_after_training.py), recorded: both documents must be the same, and torch's own message beside
# them. Then the 100,000-step anatomy recording (no OOM): the pass's wall time and peak RSS against
# reading the file whole.
stage_anylength_oom() {
  uptime
  export SAWTOOTH_CACHE_DIR=$OUT/cache
  local oom="$R/oom-after-training.sawtooth"
  timeout 300 $REC --stacks python --out "$oom" --force -- python3 bench/gpu/allocator/oom_after_training.py 20000 \
    "$R/oom-torch.json" > "$R/oom-record.stdout" 2> "$R/oom-record.stderr"
  echo "recorded: exit $? (the program ends in its OOM)"
  tail -3 "$R/oom-record.stderr"
  ls -l "$oom"
  {
    measured "oom, read whole" $TRACE oom --json "$oom"
    measured "oom --summaries" $TRACE oom --json --summaries "$oom"
  } | tee "$R/oom-open.txt"
  $TRACE oom --json "$oom" > "$R/oom-whole.json"
  $TRACE oom --json --summaries "$oom" > "$R/oom-summaries.json"
  $TRACE oom "$oom" | head -20 | tee "$R/oom.txt"
  $TRACE info "$oom" | head -20
  $TRACE info --json "$oom" > "$R/oom-info.json"
  # A workload's OOM too (16 GiB of weights, then a 256 GiB input): what its observer recorded.
  $REC --workload anatomy --device cuda --set batch=1048576 --set width=65536 --set layers=1 \
    --out "$R/oom-workload.sawtooth" --force > /dev/null 2> "$R/oom-workload.stderr"
  echo "workload OOM: exit $? (3 expected)"
  $TRACE info --json "$R/oom-workload.sawtooth" > "$R/oom-workload-info.json"
  python3 - "$R" <<'PY' | tee "$R/oom-agree.txt"
import json, sys
r = sys.argv[1]
for name in ("oom-info", "oom-workload-info"):
    meta = json.load(open(f"{r}/{name}.json"))["meta"]
    print(name, {k: v for k, v in meta.items() if k.startswith("oom.")})
w, s, t = (json.load(open(f"{r}/{n}.json")) for n in ("oom-whole", "oom-summaries", "oom-torch"))
w["file"] = s["file"] = None
print("oom --summaries:", "the same document" if w == s else "DIFFERENT")
o = w["oom"]
print(f"oom events {w['oom_events']}; requested {o['requested_bytes']} B; allocated then {o['allocated_bytes']} B "
      f"in {o['live_blocks']} blocks; explanation: {o['explanation'].get('summary')}")
print(f"torch: batch {t['batch']}, memory_allocated {t['memory_allocated']} B, "
      f"max_memory_allocated {t['max_memory_allocated']} B; {t['message'][:300]}")
PY
  if [ "${ANYLENGTH_OOM_LONG:-1}" = 1 ]; then
  recorder_run "$ANYLENGTH_STEPS" all 0
  local big="$R/long-$ANYLENGTH_STEPS-all-gpu0.sawtooth"
  ls -l "$big"
  sync
  {
    for i in 1 2; do measured "oom --summaries of the 100,000-step recording (round $i)" $TRACE oom --summaries "$big"; done
    measured "oom, the 100,000-step recording read whole" timeout 300 $TRACE oom "$big"
  } | tee "$R/oom-long.txt"
  fi
  rm -f "$R"/long-*.sawtooth "$R"/long-*.sawtooth-wal "$R"/long-*.sawtooth-shm "$R"/long-*.spec "$oom" "$R/oom-workload.sawtooth"
  rm -rf "$OUT/cache"
}
