#!/usr/bin/env python3
"""Where in my model (issue 23), end to end on the CPU: sawtooth-record on an unmodified training
script with a stack of identical blocks (one checkpointed), a module called twice and a loss
outside the model, then `sawtooth-trace modules --json`, checked exactly:

- at the peak and at the end, the rows' own bytes sum to the live bytes, and at the peak those are
  the device's peak (info's peak_allocated_bytes): every byte is somewhere;
- at the end each module's parameters, gradients and optimizer state are its own parameters'
  bytes, the same again, and Adam's two moments (plus its step counters) of them, to the byte;
- at the peak the identical blocks hold equal activations (within 1 %), the module called twice
  its two outputs, and the events are given their pass (forward, recompute, backward);
- each module's forward calls are counted (the twice-called one twice a step), the checkpointed
  block's recompute once a step;
- backward's allocations (on the CPU: the shim's portable path) belong to the module whose forward
  made them, and each module's backward time is in the table;
- --modules off (the default) records no modules, and `modules` says why.

Usage: check_module_recording.py SAWTOOTH_RECORD SAWTOOTH_TRACE PYTHON OUT_DIR
"""
import json
import os
import sqlite3
import subprocess
import sys
import textwrap

record, trace_tool, python, out = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
if subprocess.run([python, "-c", "import torch"], capture_output=True).returncode != 0:
    print(f"skipped: {python} has no torch")
    sys.exit(77)
failures = []
D, BLOCKS, ROWS, STEPS = 64, 4, 512, 3


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what, flush=True)


PROGRAM = textwrap.dedent(f"""
    import sys
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.Linear({D}, {D})
            self.act = nn.GELU()
            self.down = nn.Linear({D}, {D})

        def forward(self, x):
            return x + self.down(self.act(self.up(x)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear({D}, {D})
            self.blocks = nn.ModuleList([Block() for _ in range({BLOCKS})])
            self.norm = nn.LayerNorm({D})
            self.head = nn.Linear({D}, 10)

        def forward(self, x):
            x = self.embed(x)
            for i, b in enumerate(self.blocks):
                x = torch.utils.checkpoint.checkpoint(b, x, use_reentrant=False) if i == {BLOCKS - 1} else b(x)
            return self.head(self.norm(self.norm(x)))  # one module called twice

    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn({ROWS}, {D})
    y = torch.randint(0, 10, ({ROWS},))
    for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else {STEPS}):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)  # the loss: outside the model
        loss.backward()
        opt.step()
    print("done", flush=True)
""")
script = os.path.join(out, "blocks.py")
with open(script, "w") as f:
    f.write(PROGRAM)


def run(args, timeout=300):
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return r


def modules(path, *extra):
    r = run([trace_tool, "modules", path, "--json", *extra], timeout=120)
    check(r.returncode == 0, f"modules {path} {' '.join(extra)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout) if r.returncode == 0 else None


trace = os.path.join(out, "blocks.sawtooth")
r = run([record, "--out", trace, "--force", "--modules", "on", "--", python, script])
check(r.returncode == 0 and "done" in r.stdout, f"recording: exit {r.returncode}: {r.stderr.strip()[-2000:]}")
if r.returncode != 0:
    sys.exit(1)

info = json.loads(run([trace_tool, "info", "--json", trace]).stdout)
peaks = {d["device"]: d for d in info.get("allocator", {}).get("devices", [])} if isinstance(info.get("allocator"), dict) \
    else {}
peak = modules(trace)
end = modules(trace, "--at", "end")


def rows(m):
    return {row["name"]: row for row in m["modules"]}


def own_sum(m):
    return sum(row["self"]["total"] for row in m["modules"])


# Read from the file's summaries (a recording of any length): the same bytes per module at the
# same moments, and the costs over the moment's step: a step's share of every call the whole file
# counts (the steps are alike), the same largest rise in each.
for label, m, extra in (("peak", peak, []), ("end", end, ["--at", "end"])):
    s = modules(trace, "--summaries", *extra)
    check(s["event_index"] == m["event_index"] and s["live_bytes"] == m["live_bytes"],
          f"--summaries at the {label}: event {s['event_index']}, {s['live_bytes']} B against "
          f"{m['event_index']}, {m['live_bytes']} B")
    check({n: r["self"] for n, r in rows(s).items()} == {n: r["self"] for n, r in rows(m).items()},
          f"--summaries at the {label}: the modules' own bytes differ from the whole file's")
    check(s["costs_known"] and str(s.get("costs_scope", "")).startswith("step "),
          f"--summaries at the {label}: costs over the moment's step: {s.get('costs_scope')!r} {s.get('costs_unknown')!r}")
    whole_rows = rows(m)
    for name, row in rows(s).items():
        if "forward" not in whole_rows[name]:
            continue
        for pass_name in ("forward", "recompute"):
            want = whole_rows[name].get(pass_name, {}).get("calls", 0)
            got = row.get(pass_name, {}).get("calls", 0)
            check(got * STEPS == want, f"--summaries at the {label}: {name}'s {pass_name} calls in the step {got}, "
                                       f"the whole file {want} over {STEPS} steps")

for label, m in (("peak", peak), ("end", end)):
    check(own_sum(m) == m["live_bytes"], f"at the {label}: the rows' own bytes sum to {own_sum(m)}, "
                                         f"not the live {m['live_bytes']}")
    roots = [row for row in m["modules"] if row["depth"] == 0]
    check(sum(row["total"]["total"] for row in roots) == m["live_bytes"],
          f"at the {label}: the roots' totals and the outside row sum to the live bytes")


def info_peak():
    r = run([trace_tool, "info", "--json", trace])
    j = json.loads(r.stdout)
    found = []

    def walk(v):
        if isinstance(v, dict):
            if "peak_allocated_bytes" in v and v.get("device") in ("cpu", -1, "cpu:0") or \
                    ("peak_allocated_bytes" in v and "peak_allocated_event_index" in v):
                found.append(v)
            for w in v.values():
                walk(w)
        elif isinstance(v, list):
            for w in v:
                walk(w)
    walk(j)
    return found


found = info_peak()
check(any(f["peak_allocated_bytes"] == peak["live_bytes"] for f in found),
      f"the modules' peak {peak['live_bytes']} is info's peak ({[f['peak_allocated_bytes'] for f in found]})")
check(peak["at_peak"] and peak["event_index"] == next((f["peak_allocated_event_index"] for f in found
                                                      if "peak_allocated_event_index" in f), None),
      "the peak is info's peak event")

LINEAR = (D * D + D) * 4
expect = {"Net.embed": LINEAR, "Net.head": (D * 10 + 10) * 4, "Net.norm": 2 * D * 4}
for b in range(BLOCKS):
    expect[f"Net.blocks.{b}.up"] = LINEAR
    expect[f"Net.blocks.{b}.down"] = LINEAR
at_end = rows(end)
for name, params in expect.items():
    row = at_end.get(name)
    check(row is not None, f"{name} is a module of the recording ({sorted(at_end)[:8]}...)")
    if row is None:
        continue
    got = row["self"]
    check(row["declared_parameter_bytes"] == params, f"{name}: declared {row['declared_parameter_bytes']} B, not {params}")
    check(got.get("parameter", 0) == params, f"{name}: parameters {got.get('parameter', 0)} B at the end, not {params}")
    check(got.get("gradient", 0) == params, f"{name}: gradients {got.get('gradient', 0)} B at the end, not {params}")
    # Adam: exp_avg and exp_avg_sq as large as each parameter, and a 4-byte step counter per parameter.
    tensors = 2
    check(got.get("optimizer_state", 0) == 2 * params + 4 * tensors,
          f"{name}: optimizer state {got.get('optimizer_state', 0)} B at the end, not {2 * params + 4 * tensors}")
check(at_end["Net"]["total"].get("parameter", 0) == sum(expect.values()), "the model's parameters, summed")

at_peak = rows(peak)
activations = [at_peak[f"Net.blocks.{b}"]["total"].get("activation", 0) for b in range(BLOCKS - 1)]
print(f"peak {peak['live_bytes']} B after event {peak['event_index']} ({peak['at']}); blocks' activations "
      f"{activations}; outside {at_peak['(outside modules)']['self']}", flush=True)
check(min(activations) > 0 and max(activations) <= min(activations) * 1.01,
      f"identical blocks hold equal activations at the peak: {activations}")
check(at_peak["Net.norm"]["self"].get("activation", 0) >= 2 * ROWS * D * 4,
      f"the twice-called norm keeps both outputs: {at_peak['Net.norm']['self']}")

calls = {name: row.get("forward", {}).get("calls", 0) for name, row in at_end.items()}
check(calls.get("Net") == STEPS and calls.get("Net.blocks.0") == STEPS, f"forward calls: {calls}")
check(calls.get("Net.norm") == 2 * STEPS, f"a module called twice a step: {calls.get('Net.norm')} calls")
recompute = at_end.get(f"Net.blocks.{BLOCKS - 1}", {}).get("recompute", {}).get("calls", 0)
check(recompute == STEPS, f"the checkpointed block is recomputed once a step: {recompute}")
check(at_end.get("Net.blocks.0", {}).get("recompute") is None, "an unchecked block is never recomputed")
check(at_end[f"Net.blocks.{BLOCKS - 1}"]["recompute"]["time_ns"] > 0, "the recompute's time")

# Backward on the CPU (the shim's portable path: no tracker links an allocation to its node): each
# module's output marks where its backward begins, so backward's allocations belong to the module
# whose forward made the nodes — the blocks' Linear layers and GELUs allocate the gradient of their
# input (ROWS x D floats a step), and almost nothing is left outside modules.
with sqlite3.connect(f"file:{trace}?mode=ro", uri=True) as db:
    backward = dict(db.execute("SELECT coalesce(module, ''), sum(size) FROM events_named "
                               "WHERE pass = 'backward' AND action = 'alloc' AND source = 'allocator' GROUP BY module"))
print(f"backward's allocations by module: {backward}", flush=True)
for b in range(BLOCKS - 1):
    for part in ("up", "act"):
        got = backward.get(f"blocks.{b}.{part}", 0)
        check(got >= STEPS * ROWS * D * 4, f"blocks.{b}.{part}'s backward allocated {got} B, not at least "
                                           f"{STEPS * ROWS * D * 4} (its input's gradient each step)")
outside = backward.get("", 0)
check(outside * 10 < sum(backward.values()), f"backward's allocations outside modules: {outside} of "
                                             f"{sum(backward.values())} B")
# ... and the Modules table has each module's backward time: one stretch a step, from the recording's clock.
for name in ("Net", "Net.blocks.0", "Net.blocks.0.up", "Net.head"):
    bw = at_end.get(name, {}).get("backward") or {}
    check(bw.get("calls") == STEPS and bw.get("time_ns", 0) > 0, f"{name}'s backward: {bw}")
check(at_end["Net"]["backward"]["time_ns"] >= at_end["Net.blocks.0"]["backward"]["time_ns"],
      "a module's backward time holds its submodules'")

# --at takes peak, end or an event index; anything else is a usage error, an index past the events refused.
r = run([trace_tool, "modules", trace, "--at", "middle"])
check(r.returncode == 2 and "--at takes peak, end or an event index" in r.stderr, f"--at middle: {r.returncode} {r.stderr}")
r = run([trace_tool, "modules", trace, "--at", "999999999"])
check(r.returncode == 1 and "outside" in r.stderr, f"--at past the events: {r.returncode} {r.stderr}")
at_index = modules(trace, "--at", str(peak["event_index"]))
check(at_index["live_bytes"] == peak["live_bytes"] and not at_index["at_peak"], "--at the peak's index: the same bytes")

# --modules off: no modules in the file, and the command says why.
off = os.path.join(out, "blocks-off.sawtooth")
r = run([record, "--out", off, "--force", "--modules", "off", "--", python, script, "1"])
check(r.returncode == 0, f"--modules off: exit {r.returncode}: {r.stderr.strip()[-1000:]}")
r = run([trace_tool, "modules", off])
check(r.returncode != 0 and "module" in r.stderr, f"modules of a recording without: exit {r.returncode}, {r.stderr}")

# Module tracking is off by default, with Python stacks and without (it costs more than issue 23's
# budgets), and `modules` says how to turn it on; --modules on turns it on in either.
for name, options in (("default", []), ("stacks-none", ["--stacks", "none"])):
    quiet = os.path.join(out, f"blocks-{name}.sawtooth")
    r = run([record, "--out", quiet, "--force", *options, "--", python, script, "1"])
    check(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stderr.strip()[-1000:]}")
    r = run([trace_tool, "modules", quiet])
    check(r.returncode != 0 and "--modules on" in r.stderr, f"modules of {name}: exit {r.returncode}, {r.stderr}")
forced = os.path.join(out, "blocks-stacks-none-modules.sawtooth")
r = run([record, "--out", forced, "--force", "--stacks", "none", "--modules", "on", "--", python, script, "1"])
check(r.returncode == 0, f"--stacks none --modules on: exit {r.returncode}: {r.stderr.strip()[-1000:]}")
check((modules(forced) or {}).get("modules"), "--stacks none --modules on: modules recorded")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("module recording checks passed")
