# Stages for issue 23 (where in my model: module attribution), sourced by run_gpu.sh. Run after
# `build`, on nvidia-h200 (one GPU).
#   modules            MemTracker beside our per-module accounting (module_compare), then the
#                      overhead (module_overhead): about 8 minutes
#   module_compare     GPT-2 small (bf16, 8 x 512, AdamW) and the workloads' nets at seed sizes (anatomy,
#                      precision fp32, checkpointing every 2nd block, accumulation k = 4), each:
#                        - recorded by sawtooth-record (--mode plain; the program writes what it holds at
#                          its end), and run unrecorded under MemTracker (--mode memtracker);
#                        - compare_modules.py: parameters, gradients and optimizer state per module equal to
#                          the byte (ours at the end vs the program's), activations per module at the peak
#                          beside MemTracker's (within 5 % or explained), identical blocks within 1 %, the
#                          rows summing to the peak and the peak equal to max_requested_bytes.
#                      Results: $R/modules/<model>.md and .json, and the modules JSON of each recording.
#   module_default     GPT-2 small recorded by default (modules off) and with --modules on: meta, `modules`
#   module_overhead    GPT-2 step time inside one process (gpt2_train.py --alternate: blocks of 10 steps,
#                      the recording paused in place in every other block, hooks taken off):
#                        - nostacks:  --stacks none as recorded by default (modules off by default
#                                     since 2026-12-06), everything vs unrecorded (target <= 1.02x)
#                        - modules:   --stacks none --modules on, module tracking alone vs the same
#                                     recording without it
#                        - python:    Python stacks with modules vs PyTorch's _record_memory_history alone
#                      and only when MODULES_ALT_CASES names them:
#                        - python-default: Python stacks as recorded by default (no modules) vs the history
#                        - nostacks-modules: --stacks none with modules on, everything vs unrecorded
#                        - python-allocator: Python stacks, our allocator path (the tracker, PyTorch's
#                                     history with a ring of 1) vs PyTorch's history alone, the rest
#                                     running in both
#                        - python-cupti, -sampler, -phases, -modules: Python stacks, that part alone
#                                     vs the same recording without it
#                        - python-module-tags: Python stacks, each allocation's module tag alone (the
#                                     wrapper and its marks running in both) vs the same without it
#                        - python-nocupti: --cupti off, Python stacks with modules (and whatever runs
#                                     without CUPTI) vs PyTorch's history alone: like for like, as the
#                                     history records no driver allocations or device memory
#                        - python-nocupti-nomodules: the same with --modules off
#                      alternate_report.py summarises each ($R/modules/overhead.md); then
#                      bench/capture/shim/module_hooks_bench.py: the hooks' cost per module call, the
#                      former bodies beside the current and two empty hooks ($R/modules/hooks.md).
# Dry run of the logic on a machine without a GPU (tiny nets; MemTracker and the recorder on the CPU):
#   R=/tmp/r REC=build/ci/bin/sawtooth-record TRACE=build/ci/bin/sawtooth-trace \
#   MODULES_PY=~/.cache/sawtooth/torch-2.11.0-py3.11/bin/python MODULES_ARGS="--device cpu --tiny" \
#   MODULES_MODELS="anatomy checkpointing precision accumulation" bash -c 'source bench/gpu/stages/modules.sh; stage_module_compare'

MODULES=bench/gpu/modules
MODULES_PY=${MODULES_PY:-python3}
MODULES_ARGS=${MODULES_ARGS:-}

stage_module_compare() {
  mkdir -p "$R/modules"
  local model out status=0
  for model in ${MODULES_MODELS:-gpt2 anatomy precision checkpointing accumulation}; do
    out=$R/modules/$model
    timeout 300 $REC --quiet --out "$out.sawtooth" --force --modules on -- \
      $MODULES_PY $MODULES/module_programs.py --model "$model" --mode plain $MODULES_ARGS --json "$out.plain.json" \
      > "$out.record.log" 2>&1
    echo "$model recorded: exit $?"
    timeout 300 $MODULES_PY $MODULES/module_programs.py --model "$model" --mode memtracker $MODULES_ARGS \
      --json "$out.memtracker.json" > "$out.memtracker.log" 2>&1
    echo "$model under MemTracker: exit $?"
    $TRACE modules "$out.sawtooth" --json > "$out.modules-peak.json" 2>> "$out.record.log"
    $TRACE modules "$out.sawtooth" --at end --json > "$out.modules-end.json" 2>> "$out.record.log"
    python3 $MODULES/compare_modules.py --trace $TRACE --recording "$out.sawtooth" --plain "$out.plain.json" \
      --memtracker "$out.memtracker.json" --json "$out.json" > "$out.md"
    local rc=$?
    [ $rc -ne 0 ] && status=1
    tail -1 "$out.md"
    $TRACE modules "$out.sawtooth" --depth 2 | head -4
    rm -f "$out.sawtooth" "$out.sawtooth-wal" "$out.sawtooth-shm"
  done
  return $status
}

stage_module_overhead() {
  mkdir -p "$R/modules"
  local steps=${MODULES_ALT_STEPS:-410} block=${MODULES_ALT_BLOCK:-10} py=$MODULES_PY
  local train="bench/gpu/foreign/gpt2_train.py --steps $steps --warmup 10 --block $block"
  local name
  for name in ${MODULES_ALT_CASES:-nostacks modules python}; do
    case $name in
      nostacks) set -- --stacks none -- $py $train --alternate ours,plain ;;
      nostacks-modules) set -- --stacks none --modules on -- $py $train --alternate ours,plain ;;
      python-allocator) set -- --modules on -- $py $train --alternate ours,history --pause-parts allocator ;;
      python-cupti|python-sampler|python-phases|python-modules|python-module-tags)
        set -- --modules on -- $py $train --alternate ours,plain --pause-parts ${name#python-} ;;
      modules) set -- --stacks none --modules on -- $py $train --alternate ours,plain --pause-parts modules ;;
      python) set -- --modules on -- $py $train --alternate ours,history ;;
      # What a recording with Python stacks costs by default (modules off since 2026-12-06).
      python-default) set -- -- $py $train --alternate ours,history ;;
      # Python stacks and modules without CUPTI (PyTorch's history has no driver allocations or
      # device memory either): the like-for-like comparison.
      python-nocupti) set -- --cupti off --modules on -- $py $train --alternate ours,history ;;
      # The same without module tracking: what the modules cost of the difference.
      python-nocupti-nomodules) set -- --cupti off --modules off -- $py $train --alternate ours,history ;;
    esac
    timeout 300 $REC --quiet --out "$R/modules/alt-$name.sawtooth" --force "$@" --json "$R/modules/alt-$name.json" \
      > "$R/modules/alt-$name.stdout" 2> "$R/modules/alt-$name.stderr"
    echo "alt-$name: exit $?"
    $TRACE modules "$R/modules/alt-$name.sawtooth" --depth 1 | head -6
    rm -f "$R/modules/alt-$name.sawtooth"*
  done
  python3 bench/gpu/foreign/alternate_report.py "$R"/modules/alt-*.json | tee "$R/modules/overhead.md"
  # The hooks' own cost per module call on this machine's CPU, the former bodies beside the current
  # (MODULES_HOOKS_BENCH=0 leaves it out).
  [ "${MODULES_HOOKS_BENCH:-1}" = 0 ] && return 0
  $MODULES_PY bench/capture/shim/module_hooks_bench.py $BUILD/lib/sawtooth/inject/libsawtooth_torch_tracker.so \
    --json "$R/modules/hooks.json" | tee "$R/modules/hooks.md"
}

# GPT-2 small recorded as a user would, by default (no modules: the file says so and `modules` says how)
# and with --modules on (the modules, depth 1): what the default change of 2026-12-06 means on the GPU.
stage_module_default() {
  mkdir -p "$R/modules"
  local how out
  for how in default on; do
    out=$R/modules/gpt2-$how.sawtooth
    rm -f "$out"*
    if [ $how = on ]; then set -- --modules on; else set --; fi
    timeout 300 $REC --quiet --out "$out" "$@" -- $MODULES_PY bench/gpu/foreign/gpt2_train.py --steps 6 --warmup 2 \
      > "$out.stdout" 2> "$out.stderr"
    echo "gpt2 $how: exit $?; meta modules: $(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
      "SELECT value FROM meta WHERE key = ?", ("modules",)).fetchone())' "$out")"
    $TRACE modules "$out" --depth 1 2>&1 | head -8
    $TRACE check "$out" 2>&1 | tail -1
    grep -h "^RESULT" "$out.stdout" | cut -c1-200
  done
}

stage_modules() {
  stage_module_compare
  stage_module_overhead
}
