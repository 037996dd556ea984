# Stages for the recorder's contract on a GPU (core/recording, core/analysis/measurement_names.h).
# Sourced by bench/gpu/run_gpu.sh after stage_build; $R is the results folder, $REC the recorder.

# About 1 minute: `--list --json` reports the GPU, the device and rank rules refuse what this
# machine cannot run with exit code 2, and an anatomy recording at CPU-like sizes on the GPU
# carries the plan's measurements under their one set of names (16P of model state for Adam).
stage_contract() {
  $REC --list --json > "$R/contract-list.json" 2> "$R/contract-list.stderr"
  echo "list: exit $?"
  python3 - "$R/contract-list.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print("version", doc["version"], "cuda_available", doc["cuda_available"], "cuda_devices", doc["cuda_devices"],
      "device", doc["environment"].get("device_name"), "workloads", [w["name"] for w in doc["workloads"]])
assert doc["version"] == 1 and doc["cuda_available"] and doc["cuda_devices"] >= 1, "the GPU is not in the list"
PY
  local gpus
  gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
  $REC --workload data-parallel --device cuda --ranks $((gpus + 1)) --out "$R/contract-refused.sawtooth" \
    > /dev/null 2> "$R/contract-refused.stderr"
  echo "ranks $((gpus + 1)) on $gpus GPU(s): exit $? ($(tail -1 "$R/contract-refused.stderr" | cut -c1-200))"
  $REC --workload anatomy --device cuda --set width=512 --set batch=64 --set timed_steps=5 \
    --out "$R/contract-anatomy.sawtooth" > "$R/contract-anatomy.progress.jsonl" 2> "$R/contract-anatomy.stderr"
  echo "anatomy: exit $?"
  $TRACE info --json "$R/contract-anatomy.sawtooth" > "$R/contract-anatomy.info.json"
  python3 - "$R/contract-anatomy.info.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
m = {x["name"]: x["value"] for x in run["measurements"]}
for name in ("peak_allocated_bytes", "torch_peak_allocated_bytes", "plan_parameter_bytes", "plan_model_state_bytes",
             "plan_total_bytes", "plan_error", "step_time_median_ms"):
    print(f"{name} = {m.get(name)}")
print("model state in P:", m["plan_model_state_bytes"] / m["parameters"])
assert abs(m["plan_model_state_bytes"] / m["parameters"] - 16) < 1e-9, "Adam's model state is not 16P"
PY
  rm -f "$R"/contract-*.sawtooth
}
