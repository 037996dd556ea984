#!/usr/bin/env python3
"""Writes the synthetic allocator fixtures of tests/data (synthetic_*.pickle) and the model's own
numbers for them (tests/data/expected_allocator.json), from tests/tools/allocator_sim.py.

These files are SYNTHETIC: made by a model of the caching allocator, not by PyTorch. They cover
what the GPU-less machine cannot record: expandable segments, two streams, frees held back by
record_stream, windows that begin mid-run (blocks alive and split before the trace), power-of-two
rounding and max_split_size. Real snapshots of the same shapes are recorded and checked on the GPU
machine by bench/gpu/stages/allocator.sh.

Usage: make_allocator_fixtures.py OUT_DIR
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import allocator_sim as sim  # noqa: E402

SIDE_STREAM = 0x55D1_4C3E_1A40  # a cudaStream_t as PyTorch writes it: the pointer's value
KB, MB = 1 << 10, 1 << 20


def train_like(a, rng, steps, streams, on_window=None, window_step=None, empty_cache_step=None, jitter=0.15):
    """A training loop's pattern: parameters kept, activations born in forward and freed in
    backward in reverse, gradients kept, small temporaries, some work on a side stream whose
    blocks wait for record_stream events, and batch sizes that vary a little between steps."""
    keep = []
    a.frames = sim.frames_for("build_model", 12)
    for i in range(6):
        keep.append(a.malloc(rng.choice([3 * MB, 9 * MB, 24 * MB + 4 * KB, 700 * KB, 2 * KB, 36 * MB + 100])))
    grads = []
    for step in range(steps):
        scale = 1.0 + rng.uniform(-jitter, jitter)
        acts = []
        a.frames = sim.frames_for("forward", 40 + step % 3)
        for layer in range(8):
            stream = streams[layer % len(streams)]
            size = int(rng.choice([1.5 * MB, 6 * MB, 17 * MB, 300 * KB, 12 * KB, 48 * MB]) * scale) + rng.randrange(0, 4096)
            acts.append((a.malloc(size, stream), stream))
            if layer == 4 and step == window_step and on_window:
                on_window()  # recording begins mid-forward: activations alive and split before it
            tmp = a.malloc(rng.randrange(4, 900 * KB), stream)
            a.frames = sim.frames_for("gelu", 55)
            a.free(tmp)
            a.frames = sim.frames_for("forward", 40 + step % 3)
        a.frames = sim.frames_for("backward", 80)
        for blk, stream in reversed(acts):
            if not grads or len(grads) < 4:
                grads.append(a.malloc(int(2.5 * MB * scale) + 512))
            a.free(blk, used_on_other_stream=(stream != streams[0] and rng.random() < 0.5))
        a.frames = sim.frames_for("step", 120)
        tmp = [a.malloc(rng.randrange(1 * MB, 30 * MB)) for _ in range(3)]
        for t in tmp:
            a.free(t)
        a.complete_pending()
        if step == empty_cache_step:
            a.frames = sim.frames_for("empty_cache", 150, library=False)
            a.empty_cache()
    if len(streams) > 1:  # the snapshot is taken while a side-stream block still waits for its event
        a.frames = sim.frames_for("prefetch", 170)
        a.free(a.malloc(5 * MB + 1000, streams[1]), used_on_other_stream=True)
    return keep, grads


def scenario(name, settings, steps, streams, seed, window_step=None, empty_cache_step=None, oom=False,
             device_bytes=2 << 30):
    rng = random.Random(seed)
    a = sim.Allocator(settings, device_bytes=device_bytes)
    window = {"first": 0}

    def start_window():
        window["first"] = len(a.trace)
        a.reset_peak()

    a.reset_peak()
    train_like(a, rng, steps, streams, on_window=start_window if window_step is not None else None,
               window_step=window_step, empty_cache_step=empty_cache_step)
    if oom:
        a.frames = sim.frames_for("too_big", 300, library=False)
        try:
            a.malloc(device_bytes)  # more than the device holds: released cache, then OOM
        except sim.OutOfMemory:
            pass
    snap = a.snapshot(first_entry=window["first"])
    expected = {"devices": [{"device": 0, "peak_allocated_block_bytes": a.peak_allocated_bytes,
                             "final_allocated_block_bytes": a.allocated_bytes,
                             "window_starts_mid_run": window["first"] > 0}]}
    return name, snap, expected


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    scenarios = [
        scenario("synthetic_expandable_streams.pickle", sim.Settings(expandable=True), 6, [0, SIDE_STREAM], 11,
                 empty_cache_step=3),
        scenario("synthetic_window_streams.pickle", sim.Settings(), 7, [0, SIDE_STREAM], 12, window_step=3,
                 empty_cache_step=5, oom=True, device_bytes=1 << 30),
        scenario("synthetic_roundup_oversize.pickle",
                 sim.Settings(max_split_size_mb=40, roundup=[4, 4, 8, 8, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]), 6, [0],
                 13, window_step=2),
        scenario("synthetic_expandable_window.pickle", sim.Settings(expandable=True), 6, [0, SIDE_STREAM], 14,
                 window_step=2, empty_cache_step=4),
    ]
    expected = {}
    for name, snap, exp in scenarios:
        sim.dump(snap, os.path.join(out_dir, name))
        expected[name] = exp
        print(name, len(snap["device_traces"][0]), "events,", len(snap["segments"]), "segments")
    with open(os.path.join(out_dir, "expected_allocator.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data"))
