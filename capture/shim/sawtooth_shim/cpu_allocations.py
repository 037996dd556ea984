"""CPU allocations of a PyTorch program, through the profiler's memory events (what PyTorch
offers for the CPU allocator): the portable path, for --shim portable and a torch the tracker
library was not built for (the tracker's own reporter, cpu_native.py, is the default). The profiler runs with CPU activity only — it never touches CUPTI —
and is cut into chunks at step boundaries: each cut takes its allocation events, restarts at once
and sends them with a watermark. With --cpu auto it stops once the process uses CUDA.

The session observes no operator (its RecordFunction callbacks are limited to a scope no Python
program uses): the allocations are all it is for, an observed operator costs the program time,
and a range observed by one session and ended in the next writes into the stopped session's
freed memory (the heap corruption behind crashes at exit when cuts fell inside the optimizer's
step range). Where this torch cannot limit the scope, cuts wait until the program's ranges have
closed (phases.py). A restart after the program's own profiler waits for that too: its session
observed the ranges open now.

The profiler is one per thread: the session lives on the thread that imported torch, and is cut
only from there. When the program starts a profiler of its own, ours stops first and resumes
after it; the allocations in between are not recorded.
"""
import os
import threading
import time

from . import wire

_MIN_CHUNK_NS = 200_000_000


def _quiet_scopes(torch):
    """A RecordFunction scope no Python program enters, or None where this torch has none."""
    scopes = getattr(getattr(torch._C, "_profiler", None), "RecordScope", None)
    scope = getattr(scopes, "LITE_INTERPRETER", None)
    return {scope} if scope is not None else None


class CpuAllocations:
    def __init__(self, torch, channel, phases=None):
        self.torch = torch
        self.ch = channel
        self.phases = phases  # open ranges, and work that waits for them to close
        self.running = False
        self.started_ns = 0
        self.events = 0
        self.config = None
        self.scopes = _quiet_scopes(torch)
        self.unavailable = None
        self.paused = False
        self.restart_waiting = False
        self.thread = threading.get_ident()

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

    def _ranges_open(self):
        return self.phases is not None and self.phases.ranges.depth > 0

    def _enable(self, config, activities):
        c = self.torch._C._autograd
        c._prepare_profiler(config, activities)
        if self.scopes is not None:
            try:
                c._enable_profiler(config, activities, self.scopes)
                return
            except TypeError:  # a torch without the scopes argument
                self.scopes = None
        c._enable_profiler(config, activities)

    def start(self, announce=True):
        if self.running or self.unavailable or threading.get_ident() != self.thread:
            return
        quiet_kineto = "KINETO_LOG_LEVEL" not in os.environ and not os.path.exists("/proc/driver/nvidia/version")
        if quiet_kineto:
            # Without an NVIDIA driver Kineto's first start prints an error about CUDA devices on
            # the program's stderr; there is nothing on GPUs to hear about. It reads the variable
            # when it starts, so the program's environment is given back as it was.
            os.environ["KINETO_LOG_LEVEL"] = "5"
        try:
            if self.config is None:
                self.config = self._configure()
            self._enable(*self.config)
        except Exception as e:  # no Kineto, or a profiler already on in this thread
            self.unavailable = str(e)
            self.ch.notice("warning", f"CPU allocations are not recorded: the profiler could not start ({e})")
            self.ch.watermark(wire.CPU, time.monotonic_ns(), idle=True)
            return
        finally:
            if quiet_kineto:
                os.environ.pop("KINETO_LOG_LEVEL", None)
        self.running = True
        self.started_ns = time.monotonic_ns()
        if announce:  # nothing of this stream is older (a restart says so with the last chunk instead)
            self.ch.watermark(wire.CPU, self.started_ns)

    def cut(self, final=False, force=False):
        """Sends the chunk's allocations; starts the next chunk unless final. True if it cut."""
        if not self.running or threading.get_ident() != self.thread:
            return False
        now = time.monotonic_ns()
        if not final and not force and now - self.started_ns < _MIN_CHUNK_NS:
            return False
        if not final and self.scopes is None and self._ranges_open():
            return False  # a session that observes ranges is cut between them (see above)
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
        del result
        self.events += len(records)
        # This chunk's records go before the next chunk's start says anything newer.
        self.ch.records(wire.CPU, records, watermark=cut_ns)
        if final:
            self.ch.watermark(wire.CPU, cut_ns, idle=True)
        return True

    def pause(self):
        """Until resume(): the program's own profiler takes over."""
        self.paused = True
        if self.running:
            self.cut(final=True)

    def resume(self):
        """After the program's profiler: once the ranges its session observed have closed."""
        if not self.paused:
            return
        self.paused = False
        if self.phases is None:
            self.start()
        elif not self.restart_waiting:
            self.restart_waiting = True
            self.phases.when_ranges_close(self._restart)

    def _restart(self):
        self.restart_waiting = False
        if not self.paused:
            self.start()

    def _allocations(self, result):
        """The chunk's CPU allocations as wire records. This runs for every allocation the program
        makes (tens of thousands a second), on the program's thread: each attribute read off an
        event builds a Python object, so an event is read once, through its fields' type (no tag
        enum, no children of a leaf), and its device is compared with CPU's as a device (not
        through its type's name), or not read where no accelerator is available. The session's events are leaves in time order where it observes
        no operator: visited where they are, an operator's or range's children (where this torch
        observes them) in pre-order after it."""
        profiler = self.torch._C._profiler
        fields_type = getattr(profiler, "_ExtraFields_Allocation", None)
        allocation = profiler._EventType.Allocation
        cpu_device = self.torch.device("cpu")
        only_cpu = _only_cpu(self.torch)
        # The profiler's clock is the wall clock; the recording's is CLOCK_MONOTONIC.
        offset = time.time_ns() - time.monotonic_ns()
        alloc, free, no_stack, cpu, kind = wire.ALLOC, wire.FREE_COMPLETED, wire.NO_STACK, wire.CPU_DEVICE, wire.ALLOCATOR
        out = []
        append = out.append

        def walk(events):
            for e in events:
                f = e.extra_fields
                if type(f) is not fields_type and (fields_type is not None or e.tag != allocation):
                    walk(e.children)
                    continue
                if not only_cpu and f.device != cpu_device:  # CUDA comes from the allocator's own history
                    continue
                size = f.alloc_size
                if size > 0:
                    append((e.start_time_ns - offset, f.ptr, size, 0, no_stack, cpu, alloc, kind))
                else:
                    append((e.start_time_ns - offset, f.ptr, -size, 0, no_stack, cpu, free, kind))

        walk(result.experimental_event_tree())
        out.sort(key=_time)
        return out


def _time(record):
    return record[0]


def _only_cpu(torch):
    """True where no accelerator can allocate in this process (torch.accelerator says none is
    available, and CUDA was never started): every allocation event is then the CPU's, and its
    device is not read."""
    accelerator = getattr(torch, "accelerator", None)
    available = getattr(accelerator, "is_available", None)
    try:
        return callable(available) and not available() and not torch.cuda.is_initialized()
    except Exception:
        return False
