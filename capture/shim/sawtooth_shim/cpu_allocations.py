"""CPU allocations of a PyTorch program, through the profiler's memory events (what PyTorch
offers for the CPU allocator). The profiler runs with CPU activity only — it never touches CUPTI —
and is cut into chunks at step boundaries: each cut takes its allocation events, restarts at once
and sends them with a watermark. Its cost is the profiler's (every operator is an event), so it
is on for CPU programs and, with --cpu auto, stops once the process uses CUDA.

When the program starts a profiler of its own, ours stops first and resumes after it (the
profiler is one per thread); the allocations in between are not recorded.
"""
import os
import time

from . import wire

_MIN_CHUNK_NS = 200_000_000


class CpuAllocations:
    def __init__(self, torch, channel):
        self.torch = torch
        self.ch = channel
        self.running = False
        self.started_ns = 0
        self.events = 0
        self.config = None
        self.unavailable = None
        self.paused = False

    def _configure(self):
        """The profiler settings of this torch version, built the way its own profile() builds them."""
        torch = self.torch
        p = torch.autograd.profiler.profile(enabled=True, profile_memory=True, use_kineto=True, record_shapes=False,
                                            with_stack=False)
        try:
            config = p.config(create_trace_id=False)
        except TypeError:
            config = p.config()
        return config, p.kineto_activities

    def start(self, announce=True):
        if self.running or self.unavailable:
            return
        c = self.torch._C._autograd
        if "KINETO_LOG_LEVEL" not in os.environ and not os.path.exists("/proc/driver/nvidia/version"):
            # Without an NVIDIA driver Kineto's first start prints an error about CUDA devices on
            # the program's stderr; there is nothing on GPUs to hear about.
            os.environ["KINETO_LOG_LEVEL"] = "5"
        try:
            if self.config is None:
                self.config = self._configure()
            config, activities = self.config
            c._prepare_profiler(config, activities)
            c._enable_profiler(config, activities)
        except Exception as e:  # no Kineto, or a profiler already on in this thread
            self.unavailable = str(e)
            self.ch.notice("warning", f"CPU allocations are not recorded: the profiler could not start ({e})")
            self.ch.watermark(wire.CPU, time.monotonic_ns(), idle=True)
            return
        self.running = True
        self.started_ns = time.monotonic_ns()
        if announce:  # nothing of this stream is older (a restart says so with the last chunk instead)
            self.ch.watermark(wire.CPU, self.started_ns)

    def cut(self, final=False, force=False):
        """Sends the chunk's allocations; starts the next chunk unless final. True if it cut."""
        if not self.running:
            return False
        now = time.monotonic_ns()
        if not final and not force and now - self.started_ns < _MIN_CHUNK_NS:
            return False
        result = self.torch._C._autograd._disable_profiler()
        cut_ns = time.monotonic_ns()
        self.running = False
        if not final:
            self.start(announce=False)  # at once: what happens while this chunk is read is in the next
        try:
            records = self._allocations(result)
        except Exception as e:
            self.ch.notice("warning", f"CPU allocations of one chunk could not be read ({e})")
            records = []
        self.events += len(records)
        # This chunk's records go before the next chunk's start says anything newer.
        self.ch.records(wire.CPU, records, watermark=cut_ns)
        if final:
            self.ch.watermark(wire.CPU, cut_ns, idle=True)
        return True

    def pause(self):
        """Until resume(): the program's own profiler takes over."""
        if self.running:
            self.cut(final=True)
            self.paused = True

    def resume(self):
        if self.paused:
            self.paused = False
            self.start()

    def _allocations(self, result):
        torch = self.torch
        allocation = torch._C._profiler._EventType.Allocation
        # The profiler's clock is the wall clock; the recording's is CLOCK_MONOTONIC.
        offset = time.time_ns() - time.monotonic_ns()
        out = []
        stack = list(reversed(result.experimental_event_tree()))  # walked in pre-order: ties keep their order
        while stack:
            e = stack.pop()
            stack.extend(reversed(e.children))
            if e.tag != allocation:
                continue
            f = e.extra_fields
            if f.device.type != "cpu":  # CUDA comes from the allocator's own history
                continue
            size = f.alloc_size
            action = wire.ALLOC if size > 0 else wire.FREE_COMPLETED
            out.append((e.start_time_ns - offset, f.ptr, abs(size), 0, wire.NO_STACK, wire.CPU_DEVICE, action,
                        wire.ALLOCATOR))
        out.sort(key=lambda r: r[0])
        return out
