#!/usr/bin/env python3
"""The sample traces recorded on the H200 (resources/samples) open, keep their invariants, and the
anatomy net's categories equal torch.profiler's own categorised timeline of the same net.
Usage: check_samples.py SAWTOOTH_TRACE SAMPLES_DIR DATA_DIR"""
import json
import os
import subprocess
import sys

tool, samples, data = sys.argv[1:4]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def info(name):
    r = subprocess.run([tool, "info", "--json", os.path.join(samples, name)], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{name}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def cuda(summary):
    return [d for d in summary["devices"] if d["device"] == 0][0]


expected_runs = {"anatomy.sawtooth": ["adam"], "precision.sawtooth": ["fp32", "tf32", "bf16", "fp16"],
                 "checkpointing.sawtooth": ["store_all", "every_4th", "every_2nd", "every_block"],
                 "accumulation.sawtooth": ["exact_check", "k=1", "k=2", "k=4", "k=8"]}
# Recorded with both checkpointing forms (each non-reentrant run after its reentrant twin).
both_forms = ["store_all", "every_4th_reentrant", "every_4th", "every_2nd_reentrant", "every_2nd",
              "every_block_reentrant", "every_block"]
for name, runs in expected_runs.items():
    s = info(name)
    names = [r["name"] for r in s["runs"]]
    check(names == runs or (name == "checkpointing.sawtooth" and names == both_forms), f"{name}: runs {names}")
    check(s["meta"].get("device_name") == "NVIDIA H200", f"{name}: recorded on {s['meta'].get('device_name')}")
    order = cuda(s)["memory_order"]
    check(order["samples_checked"] > 100 and order["violations"] == 0, f"{name}: memory order {order}")
    check(s["meta"].get("cupti.dropped_records") == "0", f"{name}: CUPTI dropped records")

# torch.profiler's categories: [times, sizes], sizes[i] = [0, PARAMETER, OPTIMIZER_STATE, INPUT,
# TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, None] (torch/profiler/_memory_profiler.py).
_, sizes = json.load(open(os.path.join(data, "anatomy_adam_memory_timeline.raw.json")))
profiler = {name: max(row[col] for row in sizes)
            for name, col in (("parameter", 1), ("optimizer_state", 2), ("input", 3), ("gradient", 6))}
anatomy = cuda(info("anatomy.sawtooth"))
for name, value in profiler.items():
    check(anatomy["category_peaks"][name] == value,
          f"anatomy {name}: ours {anatomy['category_peaks'][name]} != torch.profiler {value}")
check(anatomy["peak_allocated_bytes"] == 572522496, f"anatomy peak {anatomy['peak_allocated_bytes']}")

# The GPT-2 sample: a program recorded by sawtooth-record (on an H100), its summaries as its events
# give them, and every byte of its peak in a module or outside them.
gpt2 = os.path.join(samples, "gpt2.sawtooth")
r = subprocess.run([tool, "check", gpt2], capture_output=True, text=True, timeout=120)
check(r.returncode == 0 and "agree" in r.stdout, f"gpt2: check: {r.returncode} {r.stdout.strip()} {r.stderr.strip()}")
s = info("gpt2.sawtooth")
check(s["meta"].get("device_name", "").startswith("NVIDIA H100"), f"gpt2: recorded on {s['meta'].get('device_name')}")
r = subprocess.run([tool, "modules", gpt2, "--json"], capture_output=True, text=True, timeout=120)
check(r.returncode == 0, f"gpt2: modules: {r.stderr.strip()}")
if r.returncode == 0:
    m = json.loads(r.stdout)
    own = sum(row["self"]["total"] for row in m["modules"])
    check(own == m["live_bytes"] == cuda(s)["peak_allocated_bytes"],
          f"gpt2: modules' own bytes {own}, live {m['live_bytes']}, peak {cuda(s)['peak_allocated_bytes']}")
    check(any(row["name"] == "GPT2LMHeadModel.transformer.h.11.mlp" for row in m["modules"]), "gpt2: no h.11.mlp row")

if failures:
    sys.exit(1)
print("samples: all checks passed")
