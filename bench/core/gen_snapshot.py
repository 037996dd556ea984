#!/usr/bin/env python3
"""Writes a synthetic PyTorch memory snapshot of N allocator events, shaped like the pickle that
torch.cuda.memory._dump_snapshot() writes (protocol 4, Python's own pickler): 'segments' with
'blocks', 'device_traces' (one list of event dicts per device: action, addr, size, stream,
time_us, compile_context, user_metadata, frames), 'allocator_settings' and
'external_annotations'. Python standard library only.

The events follow a training loop: each step allocates activations in forward, frees them in
backward while gradients come and go, and allocates optimizer temporaries; every free is a
free_requested followed by a free_completed; the caching allocator reuses addresses by size and
maps a new segment when it runs out. Tensors allocated before recording began (parameters,
optimizer state) show up only in the final 'segments', and some of them are freed during the
trace, as in a real snapshot that starts mid-run.

Stacks come from a pool of a few hundred call stacks of 20-60 frames; the same stack list object
is reused by every event that has that stack, so the pickler writes it once and refers back to it
through the memo (LONG_BINGET). With --frames-per-event every event carries a list of its own, as
PyTorch's snapshot writes them (torch/csrc/profiler/combined_traceback.cpp, py_symbolize: one
dict per distinct frame, shared, and one new list per trace entry): the pickle then holds a
memo reference per frame of every event. --python-stacks keeps only Python frames, 3 to 8 per
stack, as torch.cuda.memory._record_memory_history(stacks="python") records them.

Usage: gen_snapshot.py --events 500000 --out build/bench-data/snapshot_500k.pickle
       gen_snapshot.py --events 936000 --frames-per-event --python-stacks --out build/bench-data/snapshot_stacks_936k.pickle
"""
import argparse
import os
import pickle
import random
import sys
import time

MiB = 1 << 20
KiB = 1 << 10

ALLOCATOR_SETTINGS = {
    "PYTORCH_CUDA_ALLOC_CONF": "",
    "max_split_size": -1,
    "garbage_collection_threshold": 0.0,
    "expandable_segments": False,
    "pinned_num_register_threads": 1,
    "release_lock_on_cudamalloc": False,
    "pinned_use_cuda_host_register": False,
    "graph_capture_record_stream_reuse": False,
    "roundup_power2_divisions": {str(1 << k): 0 for k in range(16)},
}

UNWIND = [("torch::unwind::unwind()", "??", 0),
          ("torch::CapturedTraceback::gather(bool, bool, bool)", "??", 0),
          ("torch::cuda::(anonymous namespace)::gather_with_cpp()", "memory_snapshot.cpp", 0)]
MALLOC = [("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, "
           "CUstream_st*)", "CUDACachingAllocator.cpp", 0),
          ("c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::malloc(void**, signed char, unsigned long, "
           "CUstream_st*)", "CUDACachingAllocator.cpp", 0),
          ("c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::allocate(unsigned long)",
           "CUDACachingAllocator.cpp", 0),
          ("c10::StorageImpl::StorageImpl(c10::StorageImpl::use_byte_size_t, c10::SymInt const&, c10::Allocator*, bool)",
           "StorageImpl.h", 0)]
FREE = [("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::free(c10::cuda::CUDACachingAllocator::"
         "Native::(anonymous namespace)::Block*)", "CUDACachingAllocator.cpp", 0),
        ("c10::intrusive_ptr<c10::StorageImpl, c10::detail::intrusive_target_default_null_type<c10::StorageImpl> "
         ">::reset_not_null_(c10::StorageImpl*)", "", 0),
        ("c10::TensorImpl::~TensorImpl() [clone .localalias]", "TensorImpl.cpp", 0),
        ("THPVariable_clear(THPVariable*)", "python_variable.cpp", 0),
        ("THPVariable_dealloc(_object*)", "python_variable.cpp", 0)]
INTERPRETER = [("_PyEval_EvalFrameDefault", "??", 0), ("PyEval_EvalCode", "??", 0), ("PyRun_StringFlags", "??", 0),
               ("_PyRun_SimpleFileObject", "??", 0), ("_PyRun_AnyFileObject", "??", 0), ("Py_RunMain", "??", 0),
               ("Py_BytesMain", "??", 0), ("__libc_init_first", "??", 0), ("__libc_start_main", "??", 0),
               ("_start", "??", 0)]
ATEN_OPS = ["empty", "empty_strided", "addmm", "mm", "bmm", "relu", "gelu", "layer_norm", "native_layer_norm",
            "softmax", "_softmax", "dropout", "add", "mul", "div", "sum", "mean", "cat", "stack", "transpose",
            "contiguous", "clone", "copy_", "zeros_like", "ones_like", "embedding", "conv2d", "convolution",
            "cudnn_convolution", "batch_norm", "native_batch_norm", "scaled_dot_product_attention",
            "_flash_attention_forward", "_efficient_attention_forward", "linear", "matmul", "view", "reshape",
            "expand", "index_select", "gather", "scatter_add", "where", "masked_fill", "pow", "sqrt", "rsqrt",
            "addcmul_", "addcdiv_", "lerp_", "_foreach_add", "_foreach_mul", "_foreach_addcdiv", "cross_entropy",
            "log_softmax", "nll_loss", "mse_loss", "silu", "tanh", "sigmoid"]
PY_FILES = ["model.py", "layers.py", "attention.py", "mlp.py", "train.py", "data.py",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/linear.py",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/optim/adam.py",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/optim/optimizer.py",
            "/opt/torch/.venv/lib/python3.12/site-packages/torch/autograd/graph.py"]
PY_FUNCS = ["forward", "_call_impl", "_wrapped_call_impl", "step", "backward", "_engine_run_backward", "train_step",
            "run_epoch", "main", "<module>", "attention", "mlp_block", "transformer_block", "embed", "loss_fn",
            "adam", "_single_tensor_adam", "_multi_tensor_adam", "maybe_fallback", "_use_grad", "wrapper",
            "zero_grad", "clip_grad_norm_", "collate", "__next__"]


def frame(name, filename, line):
    return {"name": name, "filename": filename, "line": line}


def make_stacks(rng, count, python_only=False):
    """A pool of `count` stacks (lists of frame dicts, innermost first), 20 to 60 frames each, or
    3 to 8 Python frames each."""
    frames = {}

    def f(name, filename, line):  # one dict per distinct frame, shared by every stack that has it
        key = (name, filename, line)
        if key not in frames:
            frames[key] = frame(name, filename, line)
        return frames[key]

    aten = [f(f"at::native::{op}(at::Tensor const&)", f"{op.capitalize()}.cpp", 0) for op in ATEN_OPS]
    aten += [f(f"at::_ops::{op}::call(at::Tensor const&)", f"Operators_{k % 5}.cpp", 0) for k, op in enumerate(ATEN_OPS)]
    python = [f(rng.choice(PY_FUNCS), rng.choice(PY_FILES), rng.randrange(20, 2000)) for _ in range(600)]
    unwind = [f(*x) for x in UNWIND]
    interpreter = [f(*x) for x in INTERPRETER]
    stacks = []
    for k in range(count):
        if python_only:
            stacks.append(rng.sample(python, rng.randrange(3, 9)))
            continue
        freeing = k % 3 == 2
        s = list(unwind)
        s += [f(*x) for x in (FREE if freeing else MALLOC)]
        s += rng.sample(aten, rng.randrange(2, 8))
        body = rng.sample(python, rng.randrange(4, 30))
        for p in body:  # Python frames alternate with the interpreter's own
            s.append(p)
            s.append(interpreter[0])
        s += interpreter[1:]
        stacks.append(s[:60] if len(s) > 60 else s)
    return stacks


class Allocator:
    """Just enough of the caching allocator to give realistic addresses, reuse and segments."""

    def __init__(self):
        self.next_addr = 0x7FE0_0000_0000
        self.free_by_size = {}
        self.segment_end = self.next_addr
        self.segments = []  # [address, total_size]
        self.block_segment = {}  # block address -> segment index

    def allocate(self, size, new_segment):
        pool = self.free_by_size.get(size)
        if pool:
            return pool.pop()
        rounded = (size + 511) // 512 * 512
        if self.next_addr + rounded > self.segment_end:
            # The new segment begins where the last one ends: a segment never overlaps another (the
            # unused tail of the last one stays free in it, as the caching allocator's would).
            seg_addr = self.segment_end
            seg_size = max(20 * MiB, (rounded + 2 * MiB - 1) // (2 * MiB) * (2 * MiB))
            self.segments.append([seg_addr, seg_size])
            self.segment_end = seg_addr + seg_size
            self.next_addr = seg_addr
            new_segment(seg_addr, seg_size)
        addr = self.next_addr
        self.next_addr += rounded
        self.block_segment[addr] = len(self.segments) - 1
        return addr

    def release(self, addr, size):
        self.free_by_size.setdefault(size, []).append(addr)


def size_class(rng):
    r = rng.random()
    if r < 0.40:
        return 2 * MiB
    if r < 0.55:
        return 16 * MiB
    if r < 0.62:
        return rng.choice((64, 128, 256, 512)) * MiB // 8
    if r < 0.90:
        return rng.choice((512, 1024, 4096, 16 * KiB, 64 * KiB, 256 * KiB))
    return 4


def generate(n_events, seed, n_stacks, frames_per_event=False, python_stacks=False):
    rng = random.Random(seed)
    stacks = make_stacks(rng, n_stacks, python_stacks)
    alloc_stacks = [s for k, s in enumerate(stacks) if k % 3 != 2]
    free_stacks = [s for k, s in enumerate(stacks) if k % 3 == 2]
    # The same strings for every event, as in real snapshots: the pickler memoizes them once.
    actions = {a: a for a in ("alloc", "free_requested", "free_completed", "segment_alloc", "segment_free")}
    na, empty = "N/A", ""

    events = []
    annotations = []
    t = [1795936047170000]
    allocator = Allocator()

    def emit(action, addr, size, stack):
        t[0] += rng.randrange(1, 40)
        events.append({"action": actions[action], "addr": addr, "size": size, "stream": 0, "time_us": t[0],
                       "compile_context": na, "user_metadata": empty,
                       "frames": list(stack) if frames_per_event else stack})

    def new_segment(addr, size):
        emit("segment_alloc", addr, size, alloc_stacks[0])

    # Parameters and optimizer state allocated before recording began: only the segments show them.
    preexisting = []
    for _ in range(120):
        size = rng.choice((2 * MiB, 16 * MiB, 64 * KiB))
        preexisting.append((allocator.allocate(size, lambda a, s: None), size))
    live = {addr: size for addr, size in preexisting}

    def annotate(name, stage):
        annotations.append({"stage": stage, "name": name, "device": 0, "time_us": t[0]})

    def free(addr, stack):
        size = live.pop(addr)
        emit("free_requested", addr, size, stack)
        emit("free_completed", addr, size, stack)
        allocator.release(addr, size)

    step = 0
    layers = 24
    while len(events) < n_events:
        # The same code runs every step, so a step's k-th allocation has the same stack each time.
        step_rng = random.Random(seed * 7919 + step % 4)
        annotate("forward", "START")
        activations = []
        for layer in range(layers):
            for k in range(step_rng.randrange(3, 9)):
                size = size_class(rng)
                stack = alloc_stacks[(layer * 13 + k * 7) % len(alloc_stacks)]
                addr = allocator.allocate(size, new_segment)
                emit("alloc", addr, size, stack)
                live[addr] = size
                activations.append(addr)
                if rng.random() < 0.3:  # a temporary that dies at once
                    tmp_size = size_class(rng)
                    tmp = allocator.allocate(tmp_size, new_segment)
                    emit("alloc", tmp, tmp_size, stack)
                    live[tmp] = tmp_size
                    free(tmp, free_stacks[k % len(free_stacks)])
        annotate("forward", "END")
        annotate("backward", "START")
        grads = []
        for k, addr in enumerate(reversed(activations)):
            if k % 4 == 0:
                size = size_class(rng)
                g = allocator.allocate(size, new_segment)
                emit("alloc", g, size, alloc_stacks[(k * 5 + 3) % len(alloc_stacks)])
                live[g] = size
                grads.append(g)
            free(addr, free_stacks[(k * 11) % len(free_stacks)])
        annotate("backward", "END")
        annotate("Optimizer.step#Adam.step", "START")
        for k, g in enumerate(grads):
            if k % 3 == 0 and len(preexisting) > 60:  # a pre-recording block dies; parameters stay
                old, _ = preexisting.pop()
                if old in live:
                    free(old, free_stacks[k % len(free_stacks)])
            free(g, free_stacks[(k * 3 + 1) % len(free_stacks)])
        annotate("Optimizer.step#Adam.step", "END")
        step += 1
    del events[n_events:]

    # What is alive at the end, in its segments: the importer reconstructs the baseline from it.
    by_segment = {}
    for addr, size in live.items():
        by_segment.setdefault(allocator.block_segment[addr], []).append((addr, size))
    segments = []
    for index, (seg_addr, seg_size) in enumerate(allocator.segments):
        # The segment's blocks in address order, covering it: the live ones, and the gaps between
        # them (and after the last) as inactive blocks.
        blocks = []
        cursor = seg_addr
        for a, s in sorted(by_segment.get(index, [])):
            if a > cursor:
                blocks.append({"address": cursor, "size": a - cursor, "requested_size": 0, "state": "inactive",
                               "frames": []})
            blocks.append({"address": a, "size": s, "requested_size": s, "state": "active_allocated", "frames": []})
            cursor = a + s
        used = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
        if cursor < seg_addr + seg_size:
            blocks.append({"address": cursor, "size": seg_addr + seg_size - cursor, "requested_size": 0,
                           "state": "inactive", "frames": []})
        segments.append({"device": 0, "address": seg_addr, "total_size": seg_size, "allocated_size": used,
                         "active_size": used, "requested_size": used, "stream": 0,
                         "segment_type": "large" if seg_size > MiB else "small", "segment_pool_id": (0, 0),
                         "is_expandable": False, "frames": [], "blocks": blocks})
    return {"segments": segments, "device_traces": [events], "allocator_settings": ALLOCATOR_SETTINGS,
            "external_annotations": annotations}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, required=True, help="number of allocator events")
    parser.add_argument("--out", required=True, help="output .pickle path")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--stacks", type=int, default=300, help="distinct call stacks")
    parser.add_argument("--frames-per-event", action="store_true",
                        help="a list of frames of its own on every event (shared frame dicts), as PyTorch writes them")
    parser.add_argument("--python-stacks", action="store_true", help="stacks of 3 to 8 Python frames only")
    args = parser.parse_args()

    started = time.time()
    snapshot = generate(args.events, args.seed, args.stacks, args.frames_per_event, args.python_stacks)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(snapshot, f, protocol=4)
    os.replace(tmp, args.out)
    print(f"{args.out}: {args.events} events, {len(snapshot['segments'])} segments, "
          f"{len(snapshot['external_annotations'])} annotations, {os.path.getsize(args.out)} bytes, "
          f"{time.time() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
