# Stages for the allocator replay (issue 13), sourced by bench/gpu/run_gpu.sh (needs `build` first).
#   allocator   GPT-2 small (transformers' GPT2Config, random weights, no download) trained 4 steps of
#               8 x 1024 tokens with PyTorch's allocator history recorded from the first allocation:
#               torch.cuda.max_memory_allocated() beside `sawtooth-trace info --json`'s
#               peak_allocated_block_bytes (and peak_allocated_bytes, the trace's requested sizes).
#               Then four small real snapshots, one process each (bench/gpu/allocator/allocator_scenarios.py):
#               a window that begins mid-run with two streams and record_stream, expandable segments
#               with empty_cache, roundup_power2_divisions + max_split_size_mb, and an OOM in a
#               fragmented cache; tests/tools/check_allocator_state.py checks every snapshot's replay
#               against its own segments and PyTorch's counters (max_memory_allocated, memory_allocated,
#               and memory_reserved/allocated right after the OOM).
#               Expected: ~1.5 min (imports and CUDA start-up are most of it).
# Success: the gpt2 line says "equal", check.txt ends "all allocator checks passed", and the OOM
# line shows the replayed reserved/allocated equal to PyTorch's. The real_*.pickle files come back
# (small) to become fixtures in tests/data; gpt2.pickle is summarised and dropped.

stage_allocator() {
  local A=$R/allocator t0=$SECONDS s conf
  mkdir -p "$A"
  python3 bench/gpu/allocator/gpt2_max_allocated.py "$A" || { echo "gpt2 script failed"; return 1; }
  $TRACE info --json "$A/gpt2.pickle" > "$A/gpt2.info.json" || { echo "info failed"; return 1; }
  python3 - "$A/gpt2.truth.json" "$A/gpt2.info.json" <<'PY'
import json, sys
truth = json.load(open(sys.argv[1]))["gpt2.pickle"]["devices"][0]
info = [d for d in json.load(open(sys.argv[2]))["devices"] if d["device"] == 0][0]
peak, req, mma = info["peak_allocated_block_bytes"], info["peak_allocated_bytes"], truth["peak_allocated_block_bytes"]
print(f"gpt2: max_memory_allocated {mma:,}; peak_allocated_block_bytes {peak:,} "
      f"({'equal' if peak == mma else f'DIFFERS by {peak - mma:+,}'}, exact={info.get('allocated_block_bytes_exact')}); "
      f"peak_allocated_bytes (requested) {req:,} ({100 * (req - mma) / mma:+.3f} %); "
      f"final {info.get('final_allocated_block_bytes'):,} vs memory_allocated {truth['final_allocated_block_bytes']:,}")
PY
  for s in window expandable roundup oom; do
    case $s in
      expandable) conf="expandable_segments:True" ;;
      roundup) conf="roundup_power2_divisions:[256:4,>:8],max_split_size_mb:64" ;;
      *) conf="" ;;
    esac
    PYTORCH_CUDA_ALLOC_CONF=$conf python3 bench/gpu/allocator/allocator_scenarios.py $s "$A" || echo "scenario $s failed"
  done
  python3 -c 'import json, glob, sys; d = {}; [d.update(json.load(open(f))) for f in sorted(glob.glob(sys.argv[1] + "/*.truth.json"))]; json.dump(d, open(sys.argv[1] + "/truth.json", "w"), indent=1)' "$A"
  python3 tests/tools/check_allocator_state.py "$TRACE" "$A/check" --expected "$A/truth.json" "$A"/real_*.pickle "$A/gpt2.pickle" > "$A/check.txt" 2>&1
  tail -15 "$A/check.txt"
  [ -f "$A/real_oom.pickle" ] && $TRACE segments "$A/real_oom.pickle" > "$A/real_oom.segments.txt" 2>&1 && grep -A8 "out of memory" "$A/real_oom.segments.txt"
  $TRACE segments "$A/gpt2.pickle" --json > "$A/gpt2.segments.json" 2>&1
  $TRACE diff "$A/gpt2.pickle" "$A/gpt2.pickle" > "$A/gpt2.diff.txt" 2>&1
  rm -rf "$A/gpt2.pickle" "$A/check"
  ls -la "$A"
  echo "allocator: $((SECONDS - t0)) s"
}
