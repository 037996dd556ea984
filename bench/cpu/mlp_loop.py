"""An MLP's training loop, the program whose recording cost bench/cpu/record_overhead.py measures.

Prints one JSON line: the seconds the STEPS-step loop took (warm-up steps excluded), measured by
the program itself, so the interpreter's start and torch's import are not counted. With
--profiler the loop runs inside torch.profiler.profile(profile_memory=True) (CPU activity only):
the profiler's own cost, the reference the recording is held to; paid_s adds the profiler's stop
(the events processed when the `with` block closes).
"""
import argparse
import json
import time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--profiler", action="store_true")
    a = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(a.width, a.width), torch.nn.ReLU(),
                                torch.nn.Linear(a.width, a.width), torch.nn.ReLU(),
                                torch.nn.Linear(a.width, a.width), torch.nn.ReLU(),
                                torch.nn.Linear(a.width, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, a.width)
    y = torch.randint(0, 10, (a.batch,))

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(a.warmup):
        step()
    if a.profiler:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True):
            t0 = time.perf_counter()
            for _ in range(a.steps):
                step()
            loop_s = time.perf_counter() - t0
        paid_s = time.perf_counter() - t0  # with the profiler's stop and its processing of the events
    else:
        t0 = time.perf_counter()
        for _ in range(a.steps):
            step()
        loop_s = paid_s = time.perf_counter() - t0
    print(json.dumps({"loop_s": loop_s, "paid_s": paid_s, "steps": a.steps}), flush=True)


if __name__ == "__main__":
    main()
