# Stages for the ladder (issue 24: each rung predicted from one recording, beside a measured run of
# it), sourced by run_gpu.sh. Run after `build`.
#   ladder_workloads  every workload at seed size on cuda:0; each baseline (checkpointing store_all,
#                     accumulation k=1, precision fp32 and tf32) predicts its measured rungs: about 3 minutes
#   ladder_foreign    GPT-2 small and a Llama-style model (transformers, fp32, batch 8 × 512) recorded as
#                     they are and with --rung bf16, --rung checkpoint (every block), --rung checkpoint:every=2
#                     and --rung compile: about 6 minutes (13 Python starts)
#   ladder_ddp        two GPUs (nvidia-h200-x2): the data-parallel workload plain → sharded through
#                     --ranks 2, and ddp_zero.py (DDP → ZeroRedundancyOptimizer) through
#                     sawtooth-record -- torchrun --nproc-per-node 2, per rank against each rank's own
#                     max_memory_allocated; and each on one device (the anatomy workload, the script
#                     over a world of one) predicting the two-GPU ZeRO-1 run, its step time from the
#                     link; skipped with fewer than 2 GPUs: about 3 minutes
#   ladder            the three, then ladder_report
#   ladder_report     $R/ladder/report.md and report.json (bench/gpu/ladder/ladder_report.py)
#   ladder_keep       moves the recordings out of the results' tarball to $OUT/recordings/, a tarball a
#                     program (what comes back is limited per file and in count), for re-predicting offline
# Success: every row of report.md within its bound (peaks 2 % exact rules, 5 % bf16 and foreign,
# step time 10 %), the last line "N rows, 0 past a bound, 0 missing".
# Dry run of the logic on a machine without a GPU (no transformers needed):
#   R=/tmp/r REC=build/ci/bin/sawtooth-record TRACE=build/ci/bin/sawtooth-trace \
#   LADDER_PY=~/.cache/sawtooth/torch-2.11.0-py3.11/bin/python LADDER_DEVICE=cpu LADDER_MODELS=tiny \
#   LADDER_ARGS="--steps 4 --warmup 1 --batch 4 --seq 32 --layers 4" bash -c 'source bench/gpu/stages/ladder.sh; stage_ladder'

LADDER=bench/gpu/ladder
LADDER_PY=${LADDER_PY:-python3}
LADDER_DEVICE=${LADDER_DEVICE:-cuda}
LADDER_MODELS=${LADDER_MODELS:-gpt2 llama}
LADDER_ARGS=${LADDER_ARGS:---steps 20 --warmup 5 --batch 8 --seq 512 --layers 12}
LADDER_RUNGS=${LADDER_RUNGS:-bf16 checkpoint checkpoint:every=2 compile}
LADDER_REC_OPTS=${LADDER_REC_OPTS:-}  # more sawtooth-record options for ladder_foreign's programs (--kernels on)

ladder_record_workload() {  # NAME [sets...]: records a workload into $R/ladder/NAME.sawtooth
  local name=$1 out=$R/ladder/$1.sawtooth t0=$SECONDS
  shift
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  rm -f "$out"
  $REC --workload "$name" --device "$LADDER_DEVICE" --out "$out" "${sets[@]}" > "$R/ladder/$name.progress.jsonl" \
    2> "$R/ladder/$name.stderr"
  echo "workload $name: exit $? in $((SECONDS - t0)) s"
}

ladder_predict() {  # CHECK FILE [ladder options...]: the ladder of FILE into $R/ladder/CHECK.ladder.json
  local check=$1 file=$2
  shift 2
  $TRACE ladder "$file" --json "$@" > "$R/ladder/$check.ladder.json" 2> "$R/ladder/$check.ladder.err"
  local rc=$?
  [ $rc -eq 0 ] || { echo "ladder $check: exit $rc: $(head -c 300 "$R/ladder/$check.ladder.err")"; return $rc; }
  $TRACE ladder "$file" "$@" > "$R/ladder/$check.ladder.txt" 2>&1
  sed -n '1,/^Diagnosis/p' "$R/ladder/$check.ladder.txt" | grep -E "^(rung|as recorded|checkpoint|accumulate|bf16|fp16|ZeRO)" | cut -c1-170
}

stage_ladder_workloads() {
  mkdir -p "$R/ladder"
  for w in checkpointing accumulation precision anatomy; do ladder_record_workload $w; done
  ladder_predict workloads-checkpointing "$R/ladder/checkpointing.sawtooth"
  ladder_predict workloads-accumulation "$R/ladder/accumulation.sawtooth"
  ladder_predict workloads-precision-fp32 "$R/ladder/precision.sawtooth" --run fp32
  ladder_predict workloads-precision-tf32 "$R/ladder/precision.sawtooth" --run tf32
  ladder_predict workloads-anatomy "$R/ladder/anatomy.sawtooth"
}

ladder_program() {  # NAME [recorder options] -- COMMAND...: records a program into $R/ladder/NAME.sawtooth
  local name=$1 out=$R/ladder/$1.sawtooth t0=$SECONDS
  shift
  rm -f "$out" "${out%.sawtooth}".rank*.sawtooth
  timeout 600 $REC --out "$out" "$@" > "$R/ladder/$name.stdout" 2> "$R/ladder/$name.stderr"
  local rc=$?
  echo "$name: exit $rc in $((SECONDS - t0)) s; $(grep -h '^RESULT' "$R/ladder/$name.stdout" | head -1 | cut -c1-200)"
  grep -h "sawtooth-record:" "$R/ladder/$name.stderr" | grep -v "recording into" | tail -3 | cut -c1-240
  return $rc
}

stage_ladder_foreign() {
  mkdir -p "$R/ladder"
  local model rung measured
  for model in $LADDER_MODELS; do
    local cmd=($LADDER_PY $LADDER/ladder_train.py --model "$model" --device "$LADDER_DEVICE" $LADDER_ARGS)
    ladder_program "foreign-$model" $LADDER_REC_OPTS -- "${cmd[@]}"
    measured=()
    for rung in $LADDER_RUNGS; do
      local tag=${rung//[:=]/-}
      ladder_program "foreign-$model-$tag" $LADDER_REC_OPTS --rung "$rung" -- "${cmd[@]}" &&
        measured+=(--measured "$R/ladder/foreign-$model-$tag.sawtooth")
    done
    ladder_predict "foreign-$model" "$R/ladder/foreign-$model.sawtooth" "${measured[@]}"
  done
}

stage_ladder_ddp() {
  mkdir -p "$R/ladder"
  local gpus=0
  if [ "$LADDER_DEVICE" = cuda ]; then gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l); else gpus=2; fi
  if [ "$gpus" -lt 2 ]; then
    echo "ladder_ddp: skipped, $gpus GPU(s) on this machine (one GPU per rank; run on nvidia-h200-x2)"
    return 0
  fi
  for v in plain sharded; do
    local out=$R/ladder/dp-$v.sawtooth t0=$SECONDS
    rm -f "$out" "${out%.sawtooth}".rank*.sawtooth
    $REC --workload data-parallel --device "$LADDER_DEVICE" --ranks 2 --set variant=$v --timeout 900 --out "$out" \
      > "$R/ladder/dp-$v.progress.jsonl" 2> "$R/ladder/dp-$v.stderr"
    echo "data-parallel $v: exit $? in $((SECONDS - t0)) s"
  done
  for rank in 0 1; do
    ladder_predict "ddp-workload-rank$rank" "$R/ladder/dp-plain.sawtooth" --run "rank $rank" --measured "$R/ladder/dp-sharded.sawtooth"
  done
  # One device predicting two: the anatomy workload is the data-parallel model on one device (the
  # default sizes match); its sharding rows' step time comes from the link (interconnect.h).
  local one=$R/ladder/dp-one-device.sawtooth
  rm -f "$one"
  $REC --workload anatomy --device "$LADDER_DEVICE" --out "$one" > "$R/ladder/dp-one-device.progress.jsonl" \
    2> "$R/ladder/dp-one-device.stderr"
  echo "anatomy on one device: exit $?"
  ladder_predict ddp-workload-from-one-device "$one" --measured "$R/ladder/dp-sharded.sawtooth"
  # A program of the user's kind: torchrun, DDP, then the same with ZeRO-1 (each rank's own peak beside).
  local torchrun=(${LADDER_TORCHRUN:-$LADDER_PY -m torch.distributed.run} --nproc-per-node 2 --master-port 29533)
  local small=${LADDER_DDP_ARGS:-}
  ladder_program ddp-script -- "${torchrun[@]}" $LADDER/ddp_zero.py --device "$LADDER_DEVICE" $small
  ladder_program ddp-script-zero1 -- "${torchrun[@]}" $LADDER/ddp_zero.py --zero1 --device "$LADDER_DEVICE" $small
  # The same script on one device (DDP over a world of one), predicting ZeRO-1 over two.
  local torchrun_one=(${LADDER_TORCHRUN:-$LADDER_PY -m torch.distributed.run} --nproc-per-node 1 --master-port 29534)
  ladder_program ddp-script-one-device -- "${torchrun_one[@]}" $LADDER/ddp_zero.py --device "$LADDER_DEVICE" $small &&
    ladder_predict ddp-script-from-one-device "$R/ladder/ddp-script-one-device.sawtooth" \
      --measured "$R/ladder/ddp-script-zero1.sawtooth=zero1:N=2"
  for rank in 0 1; do
    ladder_predict "ddp-script-rank$rank" "$R/ladder/ddp-script.sawtooth" --run "rank $rank" \
      --measured "$R/ladder/ddp-script-zero1.sawtooth=zero1:N=2"
    # The report reads each rank's RESULT line beside its check.
    grep -h '^RESULT' "$R/ladder/ddp-script.stdout" > "$R/ladder/ddp-script-rank$rank.stdout"
  done
}

stage_ladder_report() {
  python3 $LADDER/ladder_report.py "$R/ladder" --out "$R/ladder/report.md" --json "$R/ladder/report.json"
}

stage_ladder_keep() {
  # One tarball per program (few files come back, each at most 16 MiB): foreign-gpt2*, foreign-llama*, the rest.
  mkdir -p "$OUT/recordings"
  local group files
  for group in foreign-gpt2 foreign-llama other; do
    if [ $group = other ]; then
      files=$(cd "$R/ladder" && ls *.sawtooth 2>/dev/null | grep -v '^foreign-')
    else
      files=$(cd "$R/ladder" && ls $group.sawtooth $group-*.sawtooth 2>/dev/null)
    fi
    [ -n "$files" ] && (cd "$R/ladder" && tar -czf "$OUT/recordings/$group.tgz" $files && rm -f $files)
  done
  ls -l "$OUT/recordings" | tail -n +2 | awk '{print $5, $9}'
}

stage_ladder() {
  stage_ladder_workloads
  stage_ladder_foreign
  stage_ladder_ddp
  stage_ladder_report
}
