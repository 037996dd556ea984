#!/usr/bin/env python3
"""Recording must not change the program it measures: unusual PyTorch programs (a TorchScript top
module, torch.fx graph modules, modules with hooks of their own and pickled with torch.save,
DataParallel, torch.compile of a module and of a whole step under fullgraph=True, no optimizer,
several optimizers, optimizers made after the first step and remade every epoch, checkpointing in
both forms, the program's own profiler inside a range, an exit from inside a range) run
unrecorded and through `sawtooth-record --quiet --`, and must end with the same exit status, the
same stdout and the same stderr — byte for byte. A program that builds and drops models must end
with the same memory (it prints what is alive at its end). The cases that used to crash at exit
(a profiler chunk cut inside the optimizer's step range) run several times.

Usage: check_program_unchanged.py SAWTOOTH_RECORD PYTHON OUT_DIR [CASE...]
Exit 77 (skipped) when PYTHON has no torch."""
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
import time

record, python, out = sys.argv[1:4]
only = set(sys.argv[4:])
os.makedirs(out, exist_ok=True)
if subprocess.run([python, "-c", "import torch"], capture_output=True).returncode != 0:
    print(f"skipped: {python} has no torch")
    sys.exit(77)
failures = []

COMMON = textwrap.dedent("""
    import gc, io, os, sys, weakref
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)

    def mlp(width=32, depth=3):
        layers = []
        for _ in range(depth):
            layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
        return torch.nn.Sequential(*layers)

    def train(model, opt, steps=3, width=32, tag=""):
        for step in range(steps):
            if opt is not None:
                opt.zero_grad()
            loss = model(torch.randn(8, width)).pow(2).mean()
            loss.backward()
            if opt is not None:
                opt.step()
            print(f"{tag} step {step} loss {loss.item():.6f}", flush=True)

    def alive_bytes():
        gc.collect()
        return sum(o.untyped_storage().nbytes() for o in gc.get_objects()
                   if type(o) is torch.Tensor or type(o) is torch.nn.Parameter)
""")

CASES = {
    # The top module a TorchScript module (its register_forward_pre_hook raises RuntimeError), an fx
    # GraphModule, DataParallel on the CPU, modules with hooks of their own (which count their calls
    # and see exactly the arguments they would unrecorded), and torch.save of whole modules (a hook
    # of ours on a module would be pickled with it).
    "modules": """
        scripted = torch.jit.script(mlp())
        train(scripted, torch.optim.SGD(scripted.parameters(), lr=0.1), tag="script")
        traced = torch.fx.symbolic_trace(mlp())
        train(traced, torch.optim.SGD(traced.parameters(), lr=0.1), tag="fx")
        parallel = torch.nn.DataParallel(mlp())
        train(parallel, torch.optim.Adam(parallel.parameters(), lr=0.01), tag="dp")
        calls = []

        def pre(m, a, k):
            calls.append(("pre", len(a), sorted(k)))

        def post(m, a, o):
            calls.append(("post", tuple(o.shape)))

        def backward(m, gi, go):
            calls.append(("backward", len(gi)))

        hooked = mlp()
        hooked.register_forward_pre_hook(pre, with_kwargs=True)
        hooked.register_forward_hook(post)
        hooked[0].register_full_backward_hook(backward)
        train(hooked, torch.optim.SGD(hooked.parameters(), lr=0.1, momentum=0.9), tag="hooked")
        print("hooks", calls, len(hooked._forward_hooks), len(hooked._forward_pre_hooks))
        for name, m in (("hooked", hooked), ("fx", traced), ("parallel", parallel)):
            buffer = io.BytesIO()
            torch.save(m, buffer)
            buffer.seek(0)
            back = torch.load(buffer, weights_only=False)
            print("saved and loaded", name, type(back).__name__, len(back._forward_hooks))
        buffer = io.BytesIO()
        torch.jit.save(scripted, buffer)
        buffer.seek(0)
        print("scripted saved and loaded", type(torch.jit.load(buffer)).__name__)
        print("tensors alive", alive_bytes())
    """,
    # torch.compile of a module (it warns when any global module hook exists) and of a whole step
    # under fullgraph=True (a hook of ours traced into the graph would break it).
    "compile": """
        model = mlp()
        compiled = torch.compile(model, backend="eager")
        train(compiled, torch.optim.SGD(model.parameters(), lr=0.1), tag="compiled module")
        other = mlp()
        opt = torch.optim.SGD(other.parameters(), lr=0.1)

        @torch.compile(backend="eager", fullgraph=True)
        def loss_of(x):
            with torch.autograd.profiler.record_function("inside compiled"):
                return other(x).pow(2).mean()

        for step in range(3):
            opt.zero_grad()
            loss = loss_of(torch.randn(8, 32))
            loss.backward()
            opt.step()
            print(f"fullgraph step {step} loss {loss.item():.6f}", flush=True)
    """,
    # No optimizer at all, several optimizers on one model, an optimizer made after the first step,
    # and one made again every epoch (CPython hands the new one the old one's id()). Until the first
    # optimizer torch has not imported dynamo; the shim must not import it either.
    "optimizers": """
        model = mlp()
        print("dynamo before any optimizer", "torch._dynamo" in sys.modules)
        for step in range(2):
            model.zero_grad()
            loss = model(torch.randn(8, 32)).pow(2).mean()
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            print(f"manual step {step} loss {loss.item():.6f}")
        first, rest = torch.optim.SGD(model[0].parameters(), lr=0.1), torch.optim.Adam(model[2:].parameters())
        for step in range(3):
            first.zero_grad(); rest.zero_grad()
            loss = model(torch.randn(8, 32)).pow(2).mean()
            loss.backward()
            first.step(); rest.step()
            print(f"two optimizers step {step} loss {loss.item():.6f}")
        late = mlp()
        late(torch.randn(8, 32)).sum().backward()
        train(late, torch.optim.AdamW(late.parameters(), lr=0.01), tag="late optimizer")
        for epoch in range(3):
            train(late, torch.optim.SGD(late.parameters(), lr=0.01, momentum=0.9), steps=2, tag=f"epoch {epoch}")
        with torch.no_grad():
            for _ in range(2):
                print("eval", f"{late(torch.randn(4, 32)).sum().item():.6f}")
    """,
    # Issue 27's repro: five models built and dropped (SGD with momentum). Unrecorded nothing
    # survives; the shim's optimizer tags used to keep three of them alive, and about half of the
    # recorded runs died at exit.
    "drop_models": """
        refs = []
        for i in range(5):
            model = torch.nn.Sequential(torch.nn.Linear(128, 512), torch.nn.ReLU(), torch.nn.Linear(512, 128))
            opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
            train(model, opt, steps=3, width=128, tag=f"model {i}")
            refs.append(weakref.ref(model))
            del model, opt
        print("models alive", sum(r() is not None for r in refs))
        print("tensors alive", alive_bytes())
    """,
    # torch.utils.checkpoint in both forms: the recompute runs inside backward.
    "checkpoint": """
        from torch.utils.checkpoint import checkpoint
        blocks = torch.nn.ModuleList(mlp(depth=1) for _ in range(4))
        opt = torch.optim.SGD(blocks.parameters(), lr=0.1)
        for reentrant in (False, True):
            for step in range(2):
                opt.zero_grad()
                x = torch.randn(8, 32, requires_grad=True)
                for b in blocks:
                    x = checkpoint(b, x, use_reentrant=reentrant)
                loss = x.pow(2).mean()
                loss.backward()
                opt.step()
                print(f"checkpoint reentrant={reentrant} step {step} loss {loss.item():.6f}")
    """,
    # The program's own profiler inside one of its ranges, then more steps; the program leaves
    # from inside a range at the end (a profiler chunk restarted inside a range corrupted the heap).
    "ranges": """
        model = mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        with torch.autograd.profiler.record_function("epoch"):
            train(model, opt, steps=2, tag="before")
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
                train(model, opt, steps=2, tag="profiled")
            print("profiled events", len(prof.events()) > 0)
            train(model, opt, steps=2, tag="after")
        with torch.autograd.profiler.record_function("leaving"):
            train(model, opt, steps=1, tag="last")
            sys.exit(3)
    """,
    # The legacy profiler (profiler_legacy.profile, its own enable call) and emit_itt: each needs the
    # thread's profiler slot the recording's CPU session or reporter sits in.
    "legacy_profiler": """
        model = mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        import warnings
        warnings.simplefilter("ignore")
        with torch.autograd.profiler_legacy.profile(profile_memory=True) as prof:
            train(model, opt, steps=2, tag="legacy")
        print("legacy events", len(prof.function_events) > 0)
        with torch.autograd.profiler.emit_itt():
            train(model, opt, steps=1, tag="itt")
        train(model, opt, steps=1, tag="after")
    """,
}
REPEAT = {"drop_models": 3, "ranges": 2}
PHASES = {"checkpoint": "recompute"}


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def run(args, timeout=600):
    t = time.time()
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return r, time.time() - t


# What the program's own profiler says depends on what the process did before it started (which
# blocks it has not seen allocated, whether Kineto has started already), and carries times: for
# the case that runs one, its lines are left out of the comparison.
PROFILER_CHATTER = {name: ("Memory block of unknown size", "gpuGetDeviceCount failed")
                    for name in ("ranges", "legacy_profiler")}


# A C++ or torch._logging line starts with its time and thread: "W1202 08:40:26.459000 29113 ...".
LOG_PREFIX = re.compile(r"^(\[?[WEIF])\d{4} \d\d:\d\d:\d\d\.\d+(?: +\d+)?", re.M)


def comparable(name, stderr):
    chatter = PROFILER_CHATTER.get(name, ())
    kept = "".join(line for line in stderr.splitlines(keepends=True) if not any(c in line for c in chatter))
    return LOG_PREFIX.sub(r"\1<time>", kept)


def first_difference(a, b):
    a, b = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}: unrecorded {x!r}, recorded {y!r}"
    return f"unrecorded has {len(a)} lines, recorded {len(b)}: {(a[len(b):] or b[len(a):])[:3]}"


for name, body in CASES.items():
    if only and name not in only:
        continue
    script = os.path.join(out, f"{name}.py")
    with open(script, "w") as f:
        f.write(COMMON + textwrap.dedent(body))
    plain, plain_s = run([python, script])
    print(f"{name}: unrecorded exit {plain.returncode} in {plain_s:.1f} s", flush=True)
    if plain.returncode not in (0, 3):
        check(False, f"{name}: the program itself fails: {plain.stderr[-1500:]}")
        continue
    # As recorded by default, then with module tracking (off by default; it wraps Module.__call__).
    runs = [("", [])] * REPEAT.get(name, 1) + [(", --modules on", ["--modules", "on"])]
    for attempt, (how, options) in enumerate(runs):
        trace = os.path.join(out, f"{name}.{attempt}.sawtooth")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(trace + suffix):
                os.remove(trace + suffix)
        recorded, recorded_s = run([record, "--quiet", "--out", trace, *options, "--", python, script])
        label = f"{name} (recorded{how}, run {attempt + 1})"
        print(f"{label}: exit {recorded.returncode} in {recorded_s:.1f} s", flush=True)
        check(recorded.returncode == plain.returncode,
              f"{label}: exit {recorded.returncode}, unrecorded {plain.returncode}: {recorded.stderr[-1500:]}")
        check(recorded.stdout == plain.stdout, f"{label}: stdout differs, {first_difference(plain.stdout, recorded.stdout)}")
        theirs, ours = comparable(name, plain.stderr), comparable(name, recorded.stderr)
        check(ours == theirs, f"{label}: stderr differs, {first_difference(theirs, ours)}")
        if not check(os.path.exists(trace), f"{label}: no trace"):
            continue
        db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        phases = {r[0] for r in db.execute("SELECT name FROM phases")}
        events = db.execute("SELECT count(*) FROM events").fetchone()[0]
        db.close()
        check(meta.get("complete") == "true", f"{label}: incomplete: {meta.get('incomplete_reason')}")
        check(events > 0 and {"forward", "backward"} <= phases, f"{label}: {events} events, phases {sorted(phases)}")
        check(meta.get("modules") == ("on" if options else "off"), f"{label}: modules {meta.get('modules')!r}")
        notices = meta.get("notices", "")
        check("failed" not in notices, f"{label}: the shim reported a failure: {notices}")
        if name in PHASES:
            check(PHASES[name] in phases, f"{label}: no {PHASES[name]} phase in {sorted(phases)}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("every program ran unchanged under the recorder")
