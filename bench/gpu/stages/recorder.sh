# Stages for the recorder (issue 11), sourced by bench/gpu/run_gpu.sh (needs `build` first).
#   recorder_long     anatomy with 2,000 / 8,000 / 100,000 timed steps, capture all vs none: wall time,
#                     records, dropped, step-time p50/p99 and their ratios (recorder_summary.py).
#                     On two GPUs each pair runs at once, capture on one GPU and off on the other
#                     (CUDA_VISIBLE_DEVICES); the short pairs also the other way round, to show what
#                     the two GPUs differ by. On one GPU the runs go one after the other.
#                     Expected: ~4 min on nvidia-h200-x2 (the 100,000 pair ~3 min), ~8 min on one GPU.
#   recorder_windows  --window-events and --steps on CUDA: driver rows at the window's start keep
#                     allocated <= reserved <= driver <= device used; the file complete. ~30 s.
# Success: every line "all/none" of recorder_long shows wall <= 1.10 at 100000 and p99 <= 1.05 with
# 0 dropped; recorder_windows prints "violations 0" and "complete true" for both files.
# Tried on a CPU (the logic, not the numbers), with build/gpu a link to a build here:
#   REC_DEVICE=cpu REC_STEPS="50 100" REC_GPUS=2 REC_EXTRA="--set width=64 --set layers=2 --set batch=8" \
#     OUT=/tmp/rec-gpu-test bench/gpu/run_gpu.sh recorder_long recorder_windows
# (REC_GPUS=2 runs the pairs at once as on two GPUs.)
REC_DEVICE=${REC_DEVICE:-cuda}
REC_STEPS=${REC_STEPS:-2000 8000 100000}
REC_EXTRA=${REC_EXTRA:-}

recorder_run() {  # LABEL CAPTURE GPU -> writes $R/long-LABEL-CAPTURE-gpuGPU.{spec,progress.jsonl,stderr}
  local label=$1 capture=$2 gpu=$3
  local out="$R/long-$label-$capture-gpu$gpu.sawtooth"
  local t0 t1 rc
  t0=$(date +%s%N)
  CUDA_VISIBLE_DEVICES=$gpu $REC --workload anatomy --device "$REC_DEVICE" --capture "$capture" --set "timed_steps=$label" $REC_EXTRA \
    --out "$out" --force > "${out%.sawtooth}.progress.jsonl" 2> "${out%.sawtooth}.stderr"
  rc=$?
  t1=$(date +%s%N)
  local ms=$(( (t1 - t0) / 1000000 ))
  echo "steps $label capture $capture on GPU $gpu: exit $rc in $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"
  echo "$label:$capture:$((ms / 1000)).$(printf '%03d' $((ms % 1000))):$out" > "${out%.sawtooth}.spec"
}

stage_recorder_long() {
  local gpus n
  gpus=${REC_GPUS:-$(nvidia-smi --list-gpus 2>/dev/null | wc -l)}
  uptime
  local largest=${REC_STEPS##* }
  for n in $REC_STEPS; do
    if [ "$gpus" -ge 2 ]; then
      recorder_run $n all 0 & recorder_run $n none 1 & wait
      if [ "$n" -lt "$largest" ]; then
        recorder_run $n all 1 & recorder_run $n none 0 & wait
      fi
    else
      recorder_run $n none 0
      recorder_run $n all 0
    fi
  done
  uptime
  python3 bench/gpu/recorder_summary.py "$R/recorder-long.json" $(cat "$R"/long-*.spec) | tee "$R/recorder-long.txt"
  $TRACE info "$R/long-${REC_STEPS%% *}-all-gpu0.sawtooth" > "$R/long-${REC_STEPS%% *}-all-gpu0.info.txt" 2>&1
  rm -f "$R"/long-*.sawtooth "$R"/long-*.sawtooth-wal "$R"/long-*.sawtooth-shm "$R"/long-*.spec
}

stage_recorder_windows() {
  local out
  for spec in "window:--window-events 200000" "steps:--steps 1000:1010"; do
    out="$R/${spec%%:*}.sawtooth"
    record anatomy "$out" --device "$REC_DEVICE" --set timed_steps=2000 $REC_EXTRA --force ${spec#*:}
    $TRACE info --json "$out" > "${out%.sawtooth}.info.json" 2>&1
    python3 - "${out%.sawtooth}.info.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
d = ([x for x in s["devices"] if x["device"] == 0] or s["devices"])[0]  # CUDA device 0 (the CPU's when tried there)
o = d.get("memory_order", {})
m = s["meta"]
print(f"  {sys.argv[1]}: events {s['events']}, samples checked {o.get('samples_checked')}, violations {o.get('violations')} "
      f"{o.get('first_violation') or ''}, complete {m.get('complete')}, discarded {m.get('window.events_discarded')}, "
      f"steps {m.get('window.steps')}, peak {d['peak_allocated_bytes']}, "
      f"negative categories {[c for c, v in d.get('category_peaks', {}).items() if v < 0]}")
EOF
    rm -f "$out"
  done
}
