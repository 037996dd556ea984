#!/usr/bin/env python3
"""The seed chapter's four experiments (shared/seed/memory-and-precision.txt) in Python PyTorch,
timed and measured exactly as sawtooth-record's workloads are, so that both run side by side on
the same GPU in the same call:

- every step timed with CUDA events after warm-up; median, min and max of the samples;
- peak memory = torch.cuda.max_memory_allocated() over the same stretch our runs measure;
- the seed's sizes; the seed's code where it gives code (checkpoint(..., use_reentrant=False),
  foreach optimizers by default, GradScaler for fp16).

Usage: seed_reference.py OUT.json [--quick] [--only anatomy|precision|checkpointing|accumulation]
       seed_reference.py OUT.json --only checkpointing --device cpu [--blocks N --width N --rows N]
On the CPU (to try the checkpointing comparison without a GPU) steps are timed with the clock and
the peak is torch.profiler's largest "Total Allocated" of the CPU, everything being allocated
inside the profile; sizes default to sawtooth-record's CPU defaults (4 blocks, 128 wide, 256 rows).
"""
import json
import statistics
import sys
import time

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

quick = "--quick" in sys.argv


def option(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


dev = torch.device(option("--device", "cuda"))


def stats(samples):
    return {"median_ms": statistics.median(samples), "min_ms": min(samples), "max_ms": max(samples),
            "samples": len(samples)}


def time_steps(step, n):
    if dev.type == "cpu":
        samples = []
        for _ in range(n):
            t = time.perf_counter()
            step()
            samples.append((time.perf_counter() - t) * 1e3)
        return samples
    events = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        events.append((a, b))
    torch.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in events]


def anatomy(steps=3, timed=50):
    torch.manual_seed(0)
    torch.cuda.reset_peak_memory_stats()
    # The seed records history while it runs; sawtooth's tracker needs the same switch.
    torch.cuda.memory._record_memory_history(max_entries=100000)
    net = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(2048, 2048, bias=False), nn.ReLU())]).to(dev)
    X = torch.randn(256, 2048, device=dev)
    opt = torch.optim.Adam(net.parameters())

    def step():
        opt.zero_grad(set_to_none=True)
        net(X).sum().backward()
        opt.step()

    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    snapshot = torch.cuda.memory._snapshot()
    traced = time_steps(step, timed)
    torch.cuda.memory._record_memory_history(enabled=None)
    untraced = time_steps(step, timed)
    events = len(snapshot["device_traces"][0])
    del net, X, opt
    torch.cuda.empty_cache()
    return {"peak_allocated_bytes": peak, "trace_events": events, "step_traced": stats(traced),
            "step_untraced": stats(untraced)}


def precision(warmup=10, steps=50):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Flatten(), nn.Linear(64 * 64, 8192), nn.ReLU(), nn.Linear(8192, 8192), nn.ReLU(),
                        nn.Linear(8192, 10)).to(dev)
    X = torch.randn(2048, 1, 64, 64, device=dev)
    y = torch.randint(0, 10, (2048,), device=dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")

    def step(autocast, dtype=None, scaled=False):
        opt.zero_grad(set_to_none=True)
        if autocast:
            with torch.autocast("cuda", dtype=dtype):
                l = loss(net(X), y)
        else:
            l = loss(net(X), y)
        if scaled:
            scaler.scale(l).backward()
            scaler.step(opt)
            scaler.update()
        else:
            l.backward()
            opt.step()

    modes = [("fp32", "highest", False, None, False), ("tf32", "high", False, None, False),
             ("bf16", "high", True, torch.bfloat16, False), ("fp16", "high", True, torch.float16, True)]
    out = {}
    for name, matmul, autocast, dtype, scaled in modes:
        torch.set_float32_matmul_precision(matmul)
        fn = lambda: step(autocast, dtype, scaled)  # noqa: E731
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        samples = time_steps(fn, steps)
        out[name] = {**stats(samples), "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
                     "float32_matmul_precision": matmul}
    torch.set_float32_matmul_precision("highest")
    out["step_flops"] = 3 * 2 * 2048 * (4096 * 8192 + 8192 * 8192 + 8192 * 10)
    del net, X, y, opt
    torch.cuda.empty_cache()
    return out


class Block(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d))

    def forward(self, x):
        return x + self.net(x)


def cpu_peak(setup, fn):
    """On the CPU: setup() then fn(state) inside one torch.profiler profile, so that every live byte is
    seen; the highest CPU "Total Allocated" of its [memory] events from just before fn until it returns."""
    import tempfile
    from torch.profiler import ProfilerActivity, profile, record_function
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        state = setup()
        with record_function("measured"):
            fn(state)
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        events = json.load(open(f.name))["traceEvents"]
    measured = [e for e in events if e.get("name") == "measured" and e.get("ph") == "X"][0]
    start, end = measured["ts"], measured["ts"] + measured["dur"]
    memory = sorted((e["ts"], e["args"]["Total Allocated"], e["args"]["Bytes"]) for e in events
                    if e.get("name") == "[memory]" and e["args"].get("Device Type") == 0)
    # The CPU's counter keeps bytes freed while no profile ran: count from this profile's first event.
    base = memory[0][1] - memory[0][2]
    totals = [(t, a - base) for t, a, _ in memory]
    return max([a for t, a in totals if start <= t <= end] + [a for t, a in totals if t < start][-1:]), state


def checkpointing(warmup=3, repeats=10):
    nblocks, width, rows = 16, 1024, 16384
    if dev.type == "cpu":
        nblocks, width, rows = option("--blocks", 4), option("--width", 128), option("--rows", 256)

    def make():
        torch.manual_seed(0)
        blocks = nn.ModuleList([Block(width).to(dev) for _ in range(nblocks)])
        return blocks, torch.randn(rows, width, device=dev, requires_grad=True)

    def run(state, every, reentrant=False):
        blocks, X = state
        h = X
        for i, blk in enumerate(blocks):
            h = checkpoint(blk, h, use_reentrant=reentrant) if every and i % every == 0 else blk(h)
        return h.sum()

    out = {}
    # The seed's form (use_reentrant=False, which stops recomputing once backward has what it
    # needs) and the reentrant form (whole blocks again), in sawtooth-record's order: each
    # non-reentrant run right after its reentrant twin.
    variants = [("store_all", 0, False), ("every_4th_reentrant", 4, True), ("every_4th", 4, False),
                ("every_2nd_reentrant", 2, True), ("every_2nd", 2, False), ("every_block_reentrant", 1, True),
                ("every_block", 1, False)]
    state = make() if dev.type == "cuda" else None
    for name, every, reentrant in variants:
        if dev.type == "cuda":
            for p in state[0].parameters():
                p.grad = None
            state[1].grad = None
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            run(state, every, reentrant).backward()
            torch.cuda.synchronize()
            peak = torch.cuda.max_memory_allocated()
        else:
            peak, state = cpu_peak(make, lambda st: run(st, every, reentrant).backward())
        for _ in range(warmup):
            run(state, every, reentrant).backward()
        samples = time_steps(lambda: run(state, every, reentrant).backward(), repeats)
        out[name] = {**stats(samples), "peak_allocated_bytes": peak}
    del state
    if dev.type == "cuda":
        torch.cuda.empty_cache()
    return out


def accumulation(warmup=3, repeats=10):
    # The seed's exact check.
    torch.manual_seed(0)
    net = nn.Linear(1024, 1).to(dev)
    X = torch.randn(128, 1024, device=dev)
    y = torch.randn(128, 1, device=dev)
    loss = nn.MSELoss()
    net.zero_grad()
    loss(net(X), y).backward()
    full = net.weight.grad.clone()
    net.zero_grad()
    for i in range(4):
        xb, yb = X[i * 32:(i + 1) * 32], y[i * 32:(i + 1) * 32]
        (loss(net(xb), yb) / 4).backward()
    accumulated = net.weight.grad.clone()
    out = {"max_grad_diff": (full - accumulated).abs().max().item()}

    # Peak memory and time per global batch for k = 1, 2, 4, 8 (sawtooth's scaling MLP).
    torch.manual_seed(0)
    big = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10)).to(dev)
    Xb = torch.randn(16384, 1024, device=dev)
    yb_all = torch.randint(0, 10, (16384,), device=dev)
    opt = torch.optim.SGD(big.parameters(), lr=0.01)
    ce = nn.CrossEntropyLoss()
    for k in (1, 2, 4, 8):
        micro = 16384 // k

        def global_step():
            opt.zero_grad(set_to_none=True)
            for i in range(k):
                (ce(big(Xb[i * micro:(i + 1) * micro]), yb_all[i * micro:(i + 1) * micro]) / k).backward()
            opt.step()

        for _ in range(warmup):
            global_step()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        samples = time_steps(global_step, repeats)
        out[f"k={k}"] = {**stats(samples), "peak_allocated_bytes": torch.cuda.max_memory_allocated()}
    return out


def main():
    device = torch.cuda.get_device_name(0) if dev.type == "cuda" else "cpu"
    result = {"torch": torch.__version__, "device": device, "python": sys.version.split()[0]}
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    t = time.time()
    experiments = {
        "anatomy": lambda: anatomy(timed=10 if quick else 50),
        "precision": lambda: precision(steps=10 if quick else 50),
        "checkpointing": lambda: checkpointing(repeats=3 if quick else 10),
        "accumulation": lambda: accumulation(repeats=3 if quick else 10),
    }
    for name, fn in experiments.items():
        if only in (None, name):
            result[name] = fn()
    result["wall_s"] = time.time() - t
    with open(sys.argv[1], "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps({k: v for k, v in result.items() if k != "anatomy"}, indent=1)[:3000])


if __name__ == "__main__":
    main()
