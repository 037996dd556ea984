#!/usr/bin/env bash
# Everything sawtooth-record proves on the GPU machine, in stages (one device call can run several):
#   build     configure and build the non-GUI targets against that machine's python3 torch,
#             with the Debian libraries carried in .gpu-deps/ (that machine has no network)
#   test      the whole CTest suite there (recorder.gpu runs instead of skipping)
#   seed      every workload at seed sizes, and the seed's Python (seed_reference.py) beside it
#   overhead  the same binary with every capture source on versus all off, alternating
#   report    compare.py: bench/results/h200-seed-comparison.json and a table
#   distributed  data-parallel through c10d's NCCL, plain and sharded: world size 1 on one GPU (the
#             NCCL path), 2 and 4 when the machine has that many GPUs (one GPU per rank)
# More stages live in bench/gpu/stages/*.sh (one file per area, each defining stage_NAME functions).
# Usage: bench/gpu/run_gpu.sh STAGE... ; results go to $OUT/results (tarred at the end).
# The Debian libraries that machine lacks: scripts/make-gpu-deps.sh makes .gpu-deps/ here; carry it.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/sawtooth-gpu-out}
R=$OUT/results
mkdir -p "$R"
BUILD=build/gpu
REC=$BUILD/bin/sawtooth-record
TRACE=$BUILD/bin/sawtooth-trace
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

stage_build() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  grep PRETTY /etc/os-release; g++ --version | head -1; cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  local torch_prefix deps
  torch_prefix=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
  deps=$PWD/.gpu-deps/root/usr
  cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DSAWTOOTH_BUILD_GUI=OFF -DSAWTOOTH_BUILD_BENCHMARKS=OFF \
    -DBUILD_TESTING=ON "-DCMAKE_PREFIX_PATH=$torch_prefix;$deps" > "$R/configure.log" 2>&1 || { tail -40 "$R/configure.log"; return 1; }
  grep -E "LibTorch|Recorder|GUI" "$R/configure.log"
  local t0=$SECONDS
  # BUILD_TARGETS (e.g. "sawtooth-record sawtooth-trace sawtooth_cupti_inject") builds only those
  ninja -k 0 -C $BUILD ${BUILD_TARGETS:-} > "$R/build.log" 2>&1 || { grep -E "error|FAILED" "$R/build.log" | head -30; return 1; }
  echo "build: $((SECONDS - t0)) s"
}

stage_test() {
  ctest --test-dir $BUILD --output-on-failure -j4 > "$R/ctest.log" 2>&1
  local rc=$?
  tail -25 "$R/ctest.log"
  cp -r $BUILD/tests/record-out-gpu "$R/" 2>/dev/null
  return $rc
}

stage_gputest() {
  ctest --test-dir $BUILD --output-on-failure -R recorder.gpu > "$R/ctest-gpu.log" 2>&1
  local rc=$?
  tail -25 "$R/ctest-gpu.log"
  cp -r $BUILD/tests/record-out-gpu "$R/" 2>/dev/null
  return $rc
}

record() {  # record NAME OUT [args...]
  local name=$1 out=$2
  shift 2
  local t0=$SECONDS
  $REC --workload "$name" --out "$out" "$@" > "${out%.sawtooth}.progress.jsonl" 2> "${out%.sawtooth}.stderr"
  local rc=$?
  echo "$name $* -> exit $rc in $((SECONDS - t0)) s; $(tail -1 "${out%.sawtooth}.progress.jsonl" | cut -c1-300)"
}

stage_seed() {
  for w in anatomy precision checkpointing accumulation; do
    record $w "$R/$w.sawtooth" --device cuda
    $TRACE info "$R/$w.sawtooth" > "$R/$w.info.txt"
    $TRACE info --json "$R/$w.sawtooth" > "$R/$w.info.json"
  done
  local t0=$SECONDS
  python3 bench/gpu/seed_reference.py "$R/python_reference.json" > "$R/python_reference.log" 2>&1
  echo "seed_reference.py: exit $? in $((SECONDS - t0)) s"
}

# Timing drifts a little between processes: precision and checkpointing, ours and Python's,
# alternate three more times and the comparison takes the median over the rounds.
stage_rounds() {
  for i in 1 2 3; do
    record precision "$R/round-precision-$i.sawtooth" --device cuda
    python3 bench/gpu/seed_reference.py "$R/round-python-precision-$i.json" --only precision > /dev/null 2>&1
    record checkpointing "$R/round-checkpointing-$i.sawtooth" --device cuda
    python3 bench/gpu/seed_reference.py "$R/round-python-checkpointing-$i.json" --only checkpointing > /dev/null 2>&1
  done
}

stage_overhead() {
  for i in 1 2 3 4; do
    for capture in all none; do
      record anatomy "$R/overhead-anatomy-$capture-$i.sawtooth" --device cuda --capture $capture --set timed_steps=400
      record precision "$R/overhead-precision-$capture-$i.sawtooth" --device cuda --capture $capture --set steps=200
    done
  done
}

stage_breakdown() {
  for i in 1 2; do
    for spec in none all all,-tracker all,-reporter all,-cupti all,-kernels all,-sampler; do
      record precision "$R/breakdown-$spec-$i.sawtooth" --device cuda --capture "$spec" --set modes=bf16 --set steps=200
    done
  done
}

stage_distributed() {
  grep -E "^SAWTOOTH_(GLOO|NCCL)_INCLUDE" $BUILD/CMakeCache.txt
  local gpus n v out
  gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
  for n in 1 2 4; do
    if [ "$n" -gt "$gpus" ]; then
      echo "world size $n: skipped, $gpus GPU(s) on this machine (one GPU per rank)"
      continue
    fi
    for v in plain sharded; do
      out="$R/distributed-$v-ws$n.sawtooth"
      record data-parallel "$out" --device cuda --ranks $n --set variant=$v --timeout 900
      [ -s "${out%.sawtooth}.stderr" ] && tail -3 "${out%.sawtooth}.stderr" | cut -c1-300
      [ -f "$out" ] || continue
      $TRACE info "$out" > "${out%.sawtooth}.info.txt" 2>&1
      $TRACE info --json "$out" > "${out%.sawtooth}.info.json" 2>&1
      grep -E "^  rank|peak allocated on|param_max_abs_diff|plan_model_state|step_time_median" "${out%.sawtooth}.info.txt"
      rm -f "${out%.sawtooth}".rank*.sawtooth  # the merged trace holds every rank
    done
  done
}

for f in bench/gpu/stages/*.sh; do
  [ -f "$f" ] && source "$f"
done

stage_report() {
  python3 bench/gpu/compare.py $TRACE "$R" "$R/python_reference.json" "$R/h200-seed-comparison.json" | tee "$R/comparison.txt"
}

for stage in "$@"; do
  echo "=== $stage"
  "stage_$stage" || echo "stage $stage FAILED"
done
rm -f "$R"/*.sawtooth-wal "$R"/*.sawtooth-shm
# What comes back is limited to 16 MiB a file: the four seed-size traces travel apart (they become
# resources/samples/), every other trace is summarised by `sawtooth-trace info --json` and dropped.
for f in "$R"/round-*.sawtooth "$R"/overhead-*.sawtooth "$R"/breakdown-*.sawtooth; do
  [ -f "$f" ] && $TRACE info --json "$f" > "${f%.sawtooth}.info.json" && rm -f "$f"
done
(cd "$R" && tar -czf "$OUT/samples.tgz" anatomy.sawtooth precision.sawtooth checkpointing.sawtooth accumulation.sawtooth 2>/dev/null; rm -f anatomy.sawtooth precision.sawtooth checkpointing.sawtooth accumulation.sawtooth)
rm -rf "$R"/record-out-gpu/*.sawtooth "$R"/record-out-gpu/*.pickle
tar -C "$OUT" -czf "$OUT/results.tgz" results && rm -rf "$R"
ls -la "$OUT"
