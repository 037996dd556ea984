# Issue 14, the seed exactly (sourced by bench/gpu/run_gpu.sh; needs stage_build first).
#
#   seedckpt  non-reentrant checkpointing against the seed's use_reentrant=False, side by side in
#             one call: the checkpointing workload (7 runs: store_all, then every 4th / 2nd / block,
#             each reentrant and non-reentrant) and seed_reference.py --only checkpointing,
#             alternating three rounds; compare.py --only checkpointing writes
#             $R/h200-seed-checkpointing.json and prints one row per run with "met" / "NOT met"
#             (peak within 1 %, time ≤ 1.02×). About 2 minutes.
#   jaxplan   the seed's JAX net (bench/gpu/jax_memory_profile.py): its device memory profile and
#             memory_analysis() beside it ($R/jax_seed_h200.prof, .memory_analysis.json), what
#             sawtooth-trace reads from it, and the plan beside the committed H200 anatomy
#             recording's count. About 30 s.

# SEED_DEVICE=cpu SEED_ROUNDS=1 tries the stage's logic on a machine without a GPU (CPU sizes,
# the torch venv's python3 first on PATH).
stage_seedckpt() {
  local i t0=$SECONDS device=${SEED_DEVICE:-cuda}
  for i in $(seq 1 "${SEED_ROUNDS:-3}"); do
    local out="$R/checkpointing.sawtooth" py="$R/python_checkpointing.json"
    if [ "$i" -gt 1 ]; then
      out="$R/round-checkpointing-$i.sawtooth"
      py="$R/round-python-checkpointing-$i.json"
    fi
    record checkpointing "$out" --device "$device"
    python3 bench/gpu/seed_reference.py "$py" --only checkpointing --device "$device" > "${py%.json}.log" 2>&1 ||
      tail -5 "${py%.json}.log"
  done
  $TRACE info "$R/checkpointing.sawtooth" > "$R/checkpointing.info.txt"
  $TRACE info --json "$R/checkpointing.sawtooth" > "$R/checkpointing.info.json"
  python3 bench/gpu/compare.py $TRACE "$R" "$R/python_checkpointing.json" "$R/h200-seed-checkpointing.json" \
    --only checkpointing | tee "$R/checkpointing-comparison.txt"
  echo "seedckpt: $((SECONDS - t0)) s"
}

stage_jaxplan() {
  local t0=$SECONDS
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())'
  XLA_PYTHON_CLIENT_PREALLOCATE=false python3 bench/gpu/jax_memory_profile.py "$R/jax_seed_h200" || return 1
  $TRACE info "$R/jax_seed_h200.prof" | tee "$R/jax_seed_h200.info.txt"
  $TRACE info --json "$R/jax_seed_h200.prof" > "$R/jax_seed_h200.info.json"
  $TRACE info --json resources/samples/anatomy.sawtooth > "$R/anatomy_sample.info.json"
  python3 - "$R/jax_seed_h200.info.json" "$R/anatomy_sample.info.json" <<'EOF'
import json, sys
jax, anatomy = (json.load(open(p)) for p in sys.argv[1:3])
plan = {m["name"]: m["value"] for m in jax["runs"][0]["measurements"]}
cats = [d for d in anatomy["devices"] if d["device"] == 0][0]["category_peaks"]
rows = [("arguments (parameters + inputs)", plan["jax_plan_argument_bytes"], cats["parameter"] + cats["input"]),
        ("outputs (gradients)", plan["jax_plan_output_bytes"], cats["gradient"]),
        ("temporaries (activations + temporaries, sum of peaks)", plan["jax_plan_temp_bytes"],
         cats["activation"] + cats["temporary"]),
        ("aliased", plan["jax_plan_alias_bytes"], None)]
print(f"{'':<56}{'JAX plan':>14}{'LibTorch count':>16}")
for what, p, c in rows:
    print(f"{what:<56}{p:>14.0f}{'' if c is None else f'{c:>16.0f}'}")
live = {m["name"]: m["value"] for m in jax["runs"][0]["measurements"] if m["name"].startswith("live_bytes")}
print("live buffers in the profile:", live, "= argument + output:",
      plan["jax_plan_argument_bytes"] + plan["jax_plan_output_bytes"])
EOF
  echo "jaxplan: $((SECONDS - t0)) s"
}
