# Stages for recording foreign programs (sawtooth-record -- COMMAND), sourced by run_gpu.sh.
# Run after `build`, on nvidia-h200-x2 (the torchrun case uses NCCL with a GPU per rank; on one GPU
# it falls back to Gloo, both ranks on GPU 0).
#   foreign         everything below, then the report: about 3.5 minutes (12 Python starts that import
#                   torch + transformers, ~8 s each; GPT-2 small, bf16, batch 8x512, 40 steps each)
#   foreign_quick   the GPT-2 overhead cases only: about 2 minutes
# Success prints (report.py, also $R/foreign/report.md):
#   - step time per case: ours (native, Python stacks) within +1 % of PyTorch's _record_memory_history
#     (alloc stacks), ours with --stacks none within 1.01x of the unrecorded script;
#   - trace peak (requested sizes) == the script's max_requested_bytes, and the trace's peak in blocks
#     (sawtooth-trace info's allocator replay) == max_memory_allocated ("blocks vs script" +0.00 %);
#     categories at the peak (parameter/gradient/optimizer_state/activation);
#   - CUPTI: kernels > 0, driver events > 0, device samples > 0 in the recorded GPT-2;
#   - oom: exit 1, one oom event, result=out_of_memory and oom.* in the meta;
#   - profiler: a notice that torch.profiler holds CUPTI, Kineto's CUDA events > 0, allocator events kept;
#   - torchrun: exit 0, runs "rank 0" and "rank 1", each rank's RESULT peak beside its trace's;
#   - libtorch: the built-in anatomy workload under the injection, kernels and driver events > 0.
# Dry run of the logic on a machine without a GPU (transformers needed):
#   R=/tmp/r REC=build/ci/bin/sawtooth-record TRACE=build/ci/bin/sawtooth-trace FOREIGN_PY=venv/bin/python \
#   FOREIGN_GPT2_ARGS="--device cpu --steps 3 --warmup 1 --layers 1 --batch 2 --seq 32" \
#   bash -c 'source bench/gpu/stages/foreign.sh; stage_foreign_quick'

FOREIGN=bench/gpu/foreign
FOREIGN_PY=${FOREIGN_PY:-python3}
FOREIGN_GPT2_ARGS=${FOREIGN_GPT2_ARGS:---steps 40 --warmup 10}

foreign_record() {  # foreign_record NAME [recorder options] -- COMMAND...: records, keeps the summary, drops the trace
  local name=$1
  shift
  local out=$R/foreign/$name.sawtooth t0=$SECONDS
  timeout 150 $REC --out "$out" --progress "$R/foreign/$name.progress.jsonl" "$@" \
    > "$R/foreign/$name.stdout" 2> "$R/foreign/$name.stderr"
  local rc=$?
  echo "$name: exit $rc in $((SECONDS - t0)) s; $(grep -h '^RESULT' "$R/foreign/$name.stdout" | head -1 | cut -c1-160)"
  grep -h "sawtooth-record:" "$R/foreign/$name.stderr" | grep -v "recording into" | tail -4 | cut -c1-240
  for f in "$out" "${out%.sawtooth}".rank*.sawtooth; do
    [ -f "$f" ] || continue
    $TRACE info --json "$f" > "${f%.sawtooth}.info.json" 2> "${f%.sawtooth}.info.err"
    python3 $FOREIGN/trace_facts.py "$f" > "${f%.sawtooth}.facts.json" 2>&1
    rm -f "$f" "$f-wal" "$f-shm"
  done
  return $rc
}

foreign_gpt2() {
  local args=$FOREIGN_GPT2_ARGS py=$FOREIGN_PY
  # Side by side, alternating: unrecorded, PyTorch's own history (alloc stacks, as ours), ours.
  for round in 1 2 3; do
    timeout 120 $py $FOREIGN/gpt2_train.py $args --json "$R/foreign/plain-$round.json" > /dev/null 2>&1
    echo "plain $round: $(python3 -c "import json;d=json.load(open('$R/foreign/plain-$round.json'));print(d['step_ms_median'],'ms', d['max_memory_allocated'], d['max_requested_bytes'])" 2>&1)"
    timeout 120 $py $FOREIGN/gpt2_train.py $args --history python --json "$R/foreign/torch-history-$round.json" > /dev/null 2>&1
    echo "torch history $round: $(python3 -c "import json;print(json.load(open('$R/foreign/torch-history-$round.json'))['step_ms_median'],'ms')" 2>&1)"
    foreign_record "ours-native-$round" --kernels on -- $py $FOREIGN/gpt2_train.py $args
    foreign_record "ours-nocupti-$round" --cupti off -- $py $FOREIGN/gpt2_train.py $args
  done
  foreign_record ours-nostacks --stacks none -- $py $FOREIGN/gpt2_train.py $args
  foreign_record ours-portable --shim portable -- $py $FOREIGN/gpt2_train.py $args
  timeout 120 $py $FOREIGN/gpt2_train.py $args --history python-all --json "$R/foreign/torch-history-all.json" > /dev/null 2>&1
}

# Categories beside torch.profiler's: its memory timeline (profile_memory, PyTorch's own inference of
# parameter, gradient, optimizer state, activation...) over 2 steady steps of the unrecorded script,
# and our recording of the same script; report.py puts their category peaks side by side.
foreign_categories() {
  local args=${FOREIGN_CATEGORY_ARGS:---steps 8 --warmup 4} timeline=$R/foreign/profiler-categories.raw.json.gz
  timeout 300 $FOREIGN_PY $FOREIGN/gpt2_train.py $args --profile 2 --memory-timeline "$timeline" \
    > "$R/foreign/profiler-categories.stdout" 2>&1
  echo "memory timeline: exit $?"
  $TRACE info --json "$timeline" > "$R/foreign/profiler-categories.info.json" 2> "$R/foreign/profiler-categories.info.err"
  rm -f "$timeline"
  foreign_record categories -- $FOREIGN_PY $FOREIGN/gpt2_train.py $args
}

stage_foreign_quick() {
  mkdir -p "$R/foreign"
  foreign_gpt2
  python3 $FOREIGN/report.py "$R/foreign" | tee "$R/foreign/report.md"
}

stage_foreign() {
  mkdir -p "$R/foreign"
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  foreign_gpt2
  foreign_categories
  foreign_record oom -- python3 $FOREIGN/oom_script.py
  foreign_record profiler --kernels on -- $FOREIGN_PY $FOREIGN/gpt2_train.py --steps 10 --warmup 3 --profile 2 --layers 2
  local gpus
  gpus=$(nvidia-smi --list-gpus | wc -l)
  foreign_record torchrun -- python3 -m torch.distributed.run --nproc-per-node 2 --master-addr 127.0.0.1 \
    --master-port 29533 $FOREIGN/ddp_train.py
  foreign_record libtorch --kernels on -- $REC --workload anatomy --device cuda --capture none --set timed_steps=5 \
    --out "$R/foreign/libtorch-inner.sawtooth"
  rm -f "$R/foreign/libtorch-inner.sawtooth"
  echo "GPUs: $gpus"
  python3 $FOREIGN/report.py "$R/foreign" | tee "$R/foreign/report.md"
}

# CUPTI inside Python programs (the 0-kernel failure of 2026-11-30): about 1.5 minutes. Each case
# prints the recorder's source line (driver events, kernels) and what the injection saw
# (SAWTOOTH_CUPTI_DEBUG=1: CUPTI's answers, the buffers it handed back). Success: kernels > 0 and
# driver events > 0 in every case (cupti-teardown-on: even when the user asks Kineto to finalize
# CUPTI after each session); the profiler case also needs Kineto's CUDA events > 0.
stage_cupti_python() {
  mkdir -p "$R/foreign"
  local tiny=$FOREIGN/tiny_cuda_train.py
  SAWTOOTH_CUPTI_DEBUG=1 foreign_record cupti-default --kernels on -- python3 $tiny
  grep -h "sawtooth-cupti" "$R/foreign/cupti-default.stderr" | head -16
  SAWTOOTH_CUPTI_DEBUG=1 foreign_record cupti-cpu-on --kernels on --cpu on -- python3 $tiny
  grep -h "sawtooth-cupti" "$R/foreign/cupti-cpu-on.stderr" | grep -v "enable kind" | head -12
  SAWTOOTH_CUPTI_DEBUG=1 TEARDOWN_CUPTI=1 foreign_record cupti-teardown-on --kernels on -- python3 $tiny
  grep -h "sawtooth-cupti" "$R/foreign/cupti-teardown-on.stderr" | head -16
  SAWTOOTH_CUPTI_DEBUG=1 foreign_record cupti-gpt2 --kernels on -- $FOREIGN_PY $FOREIGN/gpt2_train.py --steps 10 --warmup 3 --layers 2
  grep -h "sawtooth-cupti" "$R/foreign/cupti-gpt2.stderr" | head -8
  SAWTOOTH_CUPTI_DEBUG=1 foreign_record profiler --kernels on -- $FOREIGN_PY $FOREIGN/gpt2_train.py --steps 10 --warmup 3 --profile 2 --layers 2
  grep -h "sawtooth-cupti\|RESULT\|Kineto\|profiler" "$R/foreign/profiler.stderr" "$R/foreign/profiler.stdout" | head -16
  for f in "$R"/foreign/cupti-*.info.json "$R"/foreign/profiler.info.json; do
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m=d['meta']; print(sys.argv[1].rsplit('/',1)[-1], m.get('capture.sources'), m.get('capture.cupti'))" "$f"
  done
}

# The three cases that decide it, for a short device budget: about 50 s.
stage_cupti_python_quick() {
  mkdir -p "$R/foreign"
  SAWTOOTH_CUPTI_DEBUG=1 foreign_record cupti-default --kernels on -- python3 $FOREIGN/tiny_cuda_train.py
  SAWTOOTH_CUPTI_DEBUG=1 foreign_record cupti-cpu-on --kernels on --cpu on -- python3 $FOREIGN/tiny_cuda_train.py
  grep -h "sawtooth-cupti" "$R/foreign/cupti-cpu-on.stderr" | grep -v "enable kind" | head -12
  SAWTOOTH_CUPTI_DEBUG=1 foreign_record cupti-gpt2 --kernels on -- $FOREIGN_PY $FOREIGN/gpt2_train.py --steps 10 --warmup 3 --layers 2
}

# The overhead alone, robust to a machine whose speed drifts (the 2026-12-01 run on a shared
# 16-CPU slice had unrecorded runs at 33 ms/step in one stretch and 39 in the next): OVERHEAD_ROUNDS
# rounds (default 5) of OVERHEAD_CASES (default: plain history ours nostacks ourskernels
# nostackskernels; also history100k shimonly nocupti nocache) in rotating order, each round's cases
# back to back, GPU clocks and load logged beside. overhead_report.py compares within each round
# (paired ratios) and across rounds (medians of per-run medians and of per-run 10th percentiles).
# About 14 s a case. ours and nostacks are the defaults (no kernel records) with and without Python
# stacks; ourskernels and nostackskernels add --kernels on (what CUPTI's kernel tracing costs);
# shimonly is nostacks without CUPTI at all; nocupti is ours without it; nocache is ours with the
# tracker's frame cache off (SAWTOOTH_TRACKER_FRAME_CACHE=0): what the cache saves, and
# (trace_facts.py digests) that both name the same stacks. Each run's line gives the host's steal
# time over it and the allocator events recorded.
# The host's steal time since the /proc/stat line given (the hypervisor gave our CPUs to others).
steal_since() {
  python3 -c 'import sys; a, b = ([int(x) for x in l.split()[1:]] for l in sys.argv[1:]); d = [y - x for x, y in zip(a, b)]; print(f"{100 * d[7] / max(1, sum(d[:8])):.1f} %")' \
    "$1" "$(head -1 /proc/stat)" 2>&1
}

overhead_run() {  # overhead_run CASE ROUND
  local out=$R/overhead/$1-$2 train="$FOREIGN_PY $FOREIGN/gpt2_train.py $FOREIGN_OVERHEAD_ARGS --json $R/overhead/$1-$2.json" rc
  local cpu0
  cpu0=$(head -1 /proc/stat)
  case $1 in
    plain) timeout 150 $train > "$out.stdout" 2> "$out.stderr" ;;
    history) timeout 150 $train --history python > "$out.stdout" 2> "$out.stderr" ;;
    history100k) timeout 150 $train --history python --max-entries 100000 > "$out.stdout" 2> "$out.stderr" ;;
    ours) timeout 150 $REC --stacks python --out "$out.sawtooth" -- $train > "$out.stdout" 2> "$out.stderr" ;;
    ourskernels) timeout 150 $REC --stacks python --kernels on --out "$out.sawtooth" -- $train > "$out.stdout" 2> "$out.stderr" ;;
    nostacks) timeout 150 $REC --stacks none --out "$out.sawtooth" -- $train > "$out.stdout" 2> "$out.stderr" ;;
    nostackskernels) timeout 150 $REC --stacks none --kernels on --out "$out.sawtooth" -- $train > "$out.stdout" 2> "$out.stderr" ;;
    shimonly) timeout 150 $REC --stacks none --cupti off --out "$out.sawtooth" -- $train > "$out.stdout" 2> "$out.stderr" ;;
    nocupti) timeout 150 $REC --stacks python --cupti off --out "$out.sawtooth" -- $train > "$out.stdout" 2> "$out.stderr" ;;
    nocache) SAWTOOTH_TRACKER_FRAME_CACHE=0 timeout 150 $REC --stacks python --out "$out.sawtooth" -- $train \
               > "$out.stdout" 2> "$out.stderr" ;;
  esac
  rc=$?
  if [ -f "$out.sawtooth" ]; then
    $TRACE info --json "$out.sawtooth" > "$out.info.json" 2> /dev/null
    python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; print(json.dumps({k: v for k, v in m.items() if k.startswith(("capture.", "shim"))}))' \
      "$out.info.json" > "$out.capture.json" 2>&1
    case $1 in ours | nocache) python3 $FOREIGN/trace_facts.py "$out.sawtooth" > "$out.facts.json" 2>&1 ;; esac
    rm -f "$out.sawtooth" "$out.sawtooth-wal" "$out.sawtooth-shm"
  fi
  echo "$1 round $2: exit $rc $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['step_ms_median'])" "$out.json" 2>&1 | tail -1) ms;" \
    "$(grep -ho '[0-9]* allocator events' "$out.stderr" | head -1);" "steal $(steal_since "$cpu0")"
}

stage_foreign_overhead() {
  mkdir -p "$R/overhead"
  FOREIGN_OVERHEAD_ARGS=${FOREIGN_OVERHEAD_ARGS:---steps 60 --warmup 10}
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
    --format=csv -lms 1000 > "$R/overhead/gpu.csv" 2>&1 &
  local smi=$! cases
  read -r -a cases <<< "${OVERHEAD_CASES:-plain history ours nostacks ourskernels nostackskernels}"
  local n=${#cases[@]}
  local first=${OVERHEAD_FIRST_ROUND:-1}  # a second call continues the rounds of a first
  for round in $(seq "$first" $((first + ${OVERHEAD_ROUNDS:-5} - 1))); do
    for k in $(seq 0 $((n - 1))); do overhead_run "${cases[$(((k + round) % n))]}" "$round"; done
    echo "round $round load: $(cat /proc/loadavg)"
  done
  kill $smi 2> /dev/null
  python3 $FOREIGN/overhead_report.py "$R/overhead" | tee "$R/overhead/report.md"
}

# The overhead inside one process, for a host whose speed drifts between processes (rounds of
# separate processes resolved only a few percent on 2026-12-01): gpt2_train.py --alternate A,B
# switches between the two configurations every FOREIGN_ALT_BLOCK steps, and alternate_report.py
# compares each block with its neighbours. About 30 s a run (400 steps). FOREIGN_ALT_CASES picks
# some of the four below.
#   ours,history    Python stacks: our recording against PyTorch's own history (target ≤ +1 %)
#   ours,plain      the same, against nothing recorded (ours paused)
#   nostacks        --stacks none: the recording against nothing (target ≤ 1.01x)
#   history,plain   unrecorded: PyTorch's history against nothing (the cross-process rounds' +9 %)
# A pause stops the tracker, PyTorch's history, CUPTI's activities, the device sampler (a
# cudaMemGetInfo every 50 ms on its own thread; since 2026-12-01's fifth session), phases and
# categories; what stays is the shim's hooks doing nothing, the trace entries PyTorch builds for an
# attached tracker (hook_costs.py estimates them) and the process's start-up: foreign_overhead's
# rounds include those.
stage_foreign_alternate() {
  mkdir -p "$R/foreign"
  local steps=${FOREIGN_ALT_STEPS:-410} block=${FOREIGN_ALT_BLOCK:-10} py=$FOREIGN_PY
  local train="$FOREIGN/gpt2_train.py --steps $steps --warmup 10 --block $block" cases=" ${FOREIGN_ALT_CASES:-ours-history ours-plain nostacks history-plain} "
  [[ $cases == *" ours-history "* ]] &&
    foreign_record alt-ours-history -- $py $train --alternate ours,history --json "$R/foreign/alt-ours-history.json"
  [[ $cases == *" ours-plain "* ]] &&
    foreign_record alt-ours-plain -- $py $train --alternate ours,plain --json "$R/foreign/alt-ours-plain.json"
  [[ $cases == *" nostacks "* ]] &&
    foreign_record alt-nostacks --stacks none -- $py $train --alternate ours,plain --json "$R/foreign/alt-nostacks.json"
  if [[ $cases == *" history-plain "* ]]; then
    timeout 150 $py $train --alternate history,plain --json "$R/foreign/alt-history-plain.json" > "$R/foreign/alt-history-plain.stdout" 2>&1
    echo "alt-history-plain: exit $?"
  fi
  python3 $FOREIGN/alternate_report.py "$R"/foreign/alt-*.json | tee "$R/foreign/alternate.md"
}

# What each part of the --stacks none recording costs, inside one process: the same alternation,
# pausing one part only (sawtooth_shim.pause_recording(parts)). About 1 minute a part.
stage_foreign_alternate_parts() {
  mkdir -p "$R/foreign"
  local steps=${FOREIGN_ALT_STEPS:-410} block=${FOREIGN_ALT_BLOCK:-10} py=$FOREIGN_PY part
  for part in ${FOREIGN_ALT_PARTS:-cupti sampler phases allocator}; do
    foreign_record "alt-part-$part" --stacks none -- $py $FOREIGN/gpt2_train.py --steps $steps --warmup 10 --block $block \
      --alternate ours,plain --pause-parts $part --json "$R/foreign/alt-part-$part.json"
  done
  python3 $FOREIGN/alternate_report.py "$R"/foreign/alt-part-*.json | tee "$R/foreign/alternate-parts.md"
}


# What each part costs per operation (hook_costs.py): a kernel launch and an allocation through
# PyTorch's caching allocator, with each part running or paused in place, in two recorded
# processes (--stacks none) between unrecorded ones (the plain operations, PyTorch's history with a
# ring of one entry, and the kernels of one GPT-2-small step). The second recorded process has the
# tracker read the monotonic clock per event (SAWTOOTH_TRACKER_CLOCK=monotonic) instead of keeping
# PyTorch's stamp. About 40 s a process; HOOK_COSTS_ARGS (e.g. "--reps 20") passes on.
stage_foreign_hook_costs() {
  mkdir -p "$R/foreign"
  local py=$FOREIGN_PY args=${HOOK_COSTS_ARGS:-} i
  for i in 1 2; do
    timeout 150 $py $FOREIGN/hook_costs.py $args $([ "$i" = 1 ] && echo --gpt2-kernels) --json "$R/foreign/hooks-plain-$i.json" \
      > "$R/foreign/hooks-plain-$i.stdout" 2>&1
    echo "hooks-plain-$i: exit $?"
    cat "$R/foreign/hooks-plain-$i.stdout"
    SAWTOOTH_TRACKER_CLOCK=$([ "$i" = 2 ] && echo monotonic) \
      foreign_record "hooks-recorded-$i" --stacks none -- $py $FOREIGN/hook_costs.py $args --json "$R/foreign/hooks-recorded-$i.json"
    cat "$R/foreign/hooks-recorded-$i.stdout"
  done
}
