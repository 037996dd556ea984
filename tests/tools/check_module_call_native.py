#!/usr/bin/env python3
"""Module.__call__ in C (capture/inject/module_builtins.h), end to end on the CPU: a program
recorded with the tracker library behaves as unrecorded and its calls are marked.

- while the tracker runs, Module.__call__ is the library's (`module(...)` has no Python frame of
  ours), and `Module.__call__` reads as the shim's Python wrapper (a function);
- `module.__call__` is a method of the module, marked in C too; so is `super().__call__(...)` in a
  subclass's own __call__ (transformers' decoder layers), with no frame of the shim's on its stack,
  checkpointed through a partial of it as well (forward and recompute recorded); its signature,
  name, module, doc and weak references are as unrecorded;
- calls with many positional and keyword arguments (past any small fixed buffer) return what they
  return unrecorded; inspect.signature of a module is the same; an exception a forward raises
  reaches the program as it was raised;
- the tracker's sending thread is named "sawtooth-track" in the program's thread list;
- pausing and resuming module tracking puts the C wrapper back;
- those calls are recorded: the module called with many arguments once per call, by name;
- the first torch.compile (fullgraph) puts the Python wrapper in its place for good, before dynamo
  traces anything (dynamo guards the class's own dict entry, which must be a function), and the
  compiled module computes what it does unrecorded.

Usage: check_module_call_native.py SAWTOOTH_RECORD SAWTOOTH_TRACE PYTHON OUT_DIR
"""
import json
import os
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import recording_checks as rc  # noqa: E402

record, trace_tool, python, out = sys.argv[1:5]
rc.start(out, python)
check = rc.check


PROGRAM = textwrap.dedent("""
    import functools, inspect, json, os, sys, traceback, weakref
    import torch
    import torch.utils.checkpoint
    from torch import nn

    class Many(nn.Module):
        def forward(self, *xs, scale=1.0, **named):
            return sum(xs) * scale + sum(named.values())

    SHIM_FRAMES = []  # per call of Layer's forward: whether a frame of the shim's is on the stack

    class Layer(nn.Module):
        # As transformers' decoder layers (GradientCheckpointingLayer): its own __call__ calls super's.
        def __call__(self, *args, **kwargs):
            return super().__call__(*args, **kwargs)

        def forward(self, x, scale=1.0):
            if not torch.compiler.is_compiling():
                SHIM_FRAMES.append(any("sawtooth shim" in f.filename or "sawtooth_shim" in f.filename
                                       for f in traceback.extract_stack()))
            return x * scale

    class Checkpointed(nn.Module):
        # The same, checkpointing its forward through a partial of super().__call__.
        def __init__(self):
            super().__init__()
            self.b = nn.Linear(4, 4)

        def __call__(self, *args, **kwargs):
            return torch.utils.checkpoint.checkpoint(functools.partial(super().__call__, **kwargs), *args,
                                                     use_reentrant=False)

        def forward(self, x, scale=1.0):
            return torch.relu(self.b(x)) * scale

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.layer = Layer()
            self.many = Many()

        def forward(self, x):
            y = self.layer(self.a(x), scale=0.5)
            return self.many(*[y] * 20, scale=2.0, **{f"k{i}": x for i in range(20)})

    class Raises(nn.Module):
        def forward(self, x):
            raise ValueError("the program's own error")

    def kind():
        return type(nn.Module.__dict__["__call__"]).__name__

    torch.manual_seed(0)
    net, x = Net(), torch.randn(2, 4)
    out = {"calls": []}
    for _ in range(3):
        out["calls"].append(net(x).sum().item())
    out["kind"] = kind()
    out["class_attribute"] = type(nn.Module.__call__).__name__
    out["bound_attribute"] = type(net.__call__).__name__
    out["signature"] = str(inspect.signature(net))
    out["bound_signature"] = str(inspect.signature(net.__call__))
    out["bound_name"] = net.__call__.__name__
    out["bound_self"] = net.__call__.__self__ is net
    out["bound_module"] = inspect.getmodule(net.__call__).__name__
    out["bound_doc"] = net.__call__.__doc__
    out["bound_weak"] = weakref.WeakMethod(net.__call__)() == net.__call__
    out["bound_call"] = net.__call__(x).sum().item()
    checkpointed = Checkpointed()
    z = torch.randn(2, 4, requires_grad=True)
    for _ in range(2):
        checkpointed(z, scale=3.0).sum().backward()
    out["checkpointed_grad"] = round(z.grad.sum().item(), 5)
    raising = Raises()
    for _ in range(2):  # the first call names the module (the Python wrapper), the second is C's
        try:
            raising(x)
        except ValueError as e:
            out.setdefault("raised", []).append(str(e))
    shim = sys.modules.get("sawtooth_shim")
    modules = getattr(getattr(shim, "_active", None), "modules", None)
    if modules is not None:
        modules.set_paused(True)
        out["paused_kind"] = kind()
        modules.set_paused(False)
    out["resumed_kind"] = kind()
    out["shim_frames"] = SHIM_FRAMES[1:]  # the first call names the modules (through the Python wrapper)
    compiled = torch.compile(net, fullgraph=True, backend="eager")
    out["compiled"] = compiled(x).sum().item()
    out["after_compile_kind"] = kind()
    out["after_compile"] = net(x).sum().item()
    names = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    out["threads"] = sorted(names)
    print("RESULT " + json.dumps(out), flush=True)
""")
script = rc.write("native_call.py", PROGRAM)


def result(r):
    lines = [line for line in r.stdout.splitlines() if line.startswith("RESULT ")]
    return json.loads(lines[-1][len("RESULT "):]) if lines else None


plain = subprocess.run([python, script], capture_output=True, text=True, timeout=300)
check(plain.returncode == 0, f"unrecorded: exit {plain.returncode}: {plain.stderr[-2000:]}")
trace = os.path.join(out, "native_call.sawtooth")
rec = subprocess.run([record, "--out", trace, "--force", "--modules", "on", "--", python, script],
                     capture_output=True, text=True, timeout=300)
check(rec.returncode == 0, f"recorded: exit {rec.returncode}: {rec.stderr[-2000:]}")
a, b = result(plain), result(rec)
if a is None or b is None:
    print(f"no result: unrecorded {a}, recorded {b}")
    sys.exit(1)
check(b["kind"] == "ModuleCall", f"recorded, Module.__call__ is {b['kind']}, not the library's")
check(a["kind"] == "function" and b["class_attribute"] == "function" and b["bound_attribute"] == "method",
      f"Module.__call__ reads as a function, module.__call__ as a method: {b['class_attribute']}, {b['bound_attribute']}")
for key in ("calls", "signature", "raised", "compiled", "after_compile", "bound_signature", "bound_name",
            "bound_self", "bound_module", "bound_doc", "bound_weak", "bound_call", "checkpointed_grad"):
    check(a[key] == b[key], f"{key}: unrecorded {a[key]!r}, recorded {b[key]!r}")
check(b.get("paused_kind") == "function" and b["resumed_kind"] == "ModuleCall",
      f"paused then resumed: {b.get('paused_kind')}, {b['resumed_kind']}")
check(b["after_compile_kind"] == "function", f"after torch.compile: {b['after_compile_kind']}")
# super().__call__ in a layer's own __call__ is the C wrapper's: no frame of the shim's in its stack (until
# the program compiles: then the class holds the Python wrapper, which dynamo traces).
check(len(b["shim_frames"]) == 3 and not any(b["shim_frames"]),
      f"a shim frame in super().__call__'s stack (per call): {b['shim_frames']}")
# The recorder's threads inside the program say whose they are (a profiler, top -H, a per-thread CPU
# count): the tracker's sending thread is named; unrecorded there is none.
check("sawtooth-track" in b["threads"] and not any(t.startswith("sawtooth") for t in a["threads"]),
      f"threads recorded {b['threads']}, unrecorded {a['threads']}")
check("failed" not in rec.stderr, f"no notice of a failure: {rec.stderr[-1500:]}")

r = subprocess.run([trace_tool, "modules", trace, "--at", "end", "--json"], capture_output=True, text=True, timeout=120)
check(r.returncode == 0, f"modules: exit {r.returncode}: {r.stderr}")
if r.returncode == 0:
    rows = {row["name"]: row for row in json.loads(r.stdout)["modules"]}
    def calls(name, which="forward"):
        return rows.get(name, {}).get(which, {}).get("calls", 0)
    many = calls("Net.many")
    # 3 eager calls, net.__call__(x), the compiled call's module marked once as the compiled region, 1 after it
    check(many >= 5, f"Net.many's forward calls recorded: {many} ({sorted(rows)})")
    check(calls("Net") == 6, f"Net's forward calls: {calls('Net')}, not 6 (the compiled call marked once)")
    check(calls("Net.layer") >= 5, f"Net.layer's forward calls (super().__call__): {calls('Net.layer')}")
    check(calls("Checkpointed") == 2 and calls("Checkpointed", "recompute") == 2,
          f"the checkpointed layer's forward and recompute calls: {calls('Checkpointed')}, "
          f"{calls('Checkpointed', 'recompute')}")
    check("Raises" in rows, f"the raising module is recorded: {sorted(rows)}")

sys.exit(rc.finish("native module call checks passed"))
