#!/usr/bin/env bash
# Re-predicts the ladder offline (no GPU) from the recordings of an earlier GPU run of
# bench/gpu/stages/ladder.sh: the same `sawtooth-trace ladder` calls as its ladder_predict, into
# OUT, then ladder_report.py. The recordings are not changed; the programs' RESULT lines are copied.
#
# Usage: bench/gpu/ladder/offline_repredict.sh RESULTS_LADDER_DIR OUT_DIR [sawtooth-trace]
set -euo pipefail
src=$1 out=$2 trace=${3:-build/no-torch/bin/sawtooth-trace}
mkdir -p "$out"
predict() {  # CHECK FILE [ladder options...]
  local check=$1 file=$2
  shift 2
  "$trace" ladder "$file" --json "$@" > "$out/$check.ladder.json"
  "$trace" ladder "$file" "$@" > "$out/$check.ladder.txt"
}
predict workloads-checkpointing "$src/checkpointing.sawtooth"
predict workloads-accumulation "$src/accumulation.sawtooth"
predict workloads-precision-fp32 "$src/precision.sawtooth" --run fp32
predict workloads-precision-tf32 "$src/precision.sawtooth" --run tf32
predict workloads-anatomy "$src/anatomy.sawtooth"
for model in gpt2 llama; do
  [ -f "$src/foreign-$model.sawtooth" ] || continue
  measured=()
  for f in "$src/foreign-$model"-*.sawtooth; do
    [ -f "$f" ] && measured+=(--measured "$f")
  done
  predict "foreign-$model" "$src/foreign-$model.sawtooth" "${measured[@]}"
done
cp "$src"/*.stdout "$out"/ 2>/dev/null || true
python3 "$(dirname "$0")/ladder_report.py" "$out" --out "$out/report.md" --json "$out/report.json" || true
