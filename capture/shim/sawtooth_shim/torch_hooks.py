"""What the shim does once the program has imported torch: phases and categories (phases.py),
CPU allocations (cpu_allocations.py), and — when the program first uses CUDA — PyTorch's CUDA
allocator (cuda_native.py, or cuda_portable.py) and its OOM observer. It also notices a program
that runs torch.profiler itself: the profiler is one per thread and Kineto needs CUPTI, so ours
step aside while it runs and the user is told.
"""
import ctypes
import importlib
import os
import platform
import sys

from . import children, cuda_native, wire
from .cpu_allocations import CpuAllocations
from .cpu_native import NativeCpu
from .cuda_portable import PortableCuda
from .guard import Guard, first, then
from .history import History
from .modules import Modules
from .phases import Phases


# What pause() stops: all, unless a measurement names some. "cupti" is the injection library's
# activities, "sampler" its device memory samples, "modules" the module hooks (taken off).
PAUSABLE = ("allocator", "cupti", "sampler", "phases", "modules", "module-tags")


class Shim:
    def __init__(self, channel, options, role):
        self.ch = channel
        self.guard = Guard(channel)
        self.options = options
        self.role = role
        self.torch = None
        self.phases = None
        self.modules = None
        self.cpu = None
        self.cpu_stop_pending = False
        self.cpu_recorded = False
        self.tracker = None  # the tracker library, once connected for CPU allocations (cpu_native.py)
        self.cuda = None
        self.profiling = False
        self.finished = False
        self.paused_parts = None  # what pause() stopped
        self.children = children.Children(channel, self.guard)

    # -- start -------------------------------------------------------------------------------------
    def on_torch(self, torch):
        self.torch = torch
        self.guard.use_torch(torch)
        self.ch.meta({"torch_version": torch.__version__, "torch_cuda_version": torch.version.cuda or "",
                      "python_version": platform.python_version(), "shim_role": self.role})
        self.phases = Phases(torch, self.ch, self.guard.wrap("the work at a step's end", self.quiet_point), self.guard)
        if self.options.get("modules", "off") == "on":  # sawtooth-record --modules (off by default)
            try:
                modules = Modules(torch, self.ch, self.guard)
                modules.install()
                self.modules = modules
                self.phases.owner = modules.owner
            except Exception as e:
                self.guard.report("installing the tracking of the program's modules", e)
        self.phases.install()
        self.phases.on_new_top_module = self._model_watch(torch)
        try:
            self._patch_profiler()
        except Exception as e:
            self.guard.report("watching the program's own torch.profiler", e)
        try:
            self.children.install_subprocess()
        except Exception as e:
            self.guard.report("noting the program's child processes", e)
        cpu = self.options.get("cpu", "auto")
        if cpu != "off":
            native, why = self._native_cpu(torch)
            if native is None and cpu == "auto" and self._cupti_injected() and os.path.exists(
                    "/proc/driver/nvidia/version"):
                # Kineto takes CUPTI's activity buffers even for a CPU-only session, and handing them
                # back and forth lost kernels or crashed programs at exit on the H200. The tracker's
                # reporter is no profiler session: it has no such conflict.
                self.ch.notice("info", f"CPU allocations are not recorded on a machine with a GPU (--cpu auto): the "
                                       f"tracker library cannot record them ({why}), and the profiler that would "
                                       "shares CUPTI with the recording of kernels and driver allocations; pass --cpu "
                                       "on to record them anyway")
            else:
                if native is None and why:
                    self.ch.notice("info" if self.options.get("mode", "auto") == "auto" else "warning",
                                   f"CPU allocations are recorded through the profiler's memory events ({why})")
                self.cpu = native or CpuAllocations(torch, self.ch, self.phases)
                self.cpu.start()
                self.cpu_recorded = self.cpu.running
        if self.options.get("mode", "auto") != "off" and hasattr(torch, "cuda"):
            torch.cuda._lazy_call(self.guard.wrap("recording PyTorch's CUDA allocator", self.on_cuda_init))

    def _native_cpu(self, torch):
        """(the tracker library's CPU reporter, connected, None) (cpu_native.py); (None, why not)
        where the library cannot run here, or (None, "") where --shim portable asks for the
        profiler's path."""
        mode = self.options.get("mode", "auto")
        if mode not in ("auto", "native"):
            return None, ""
        library = os.environ.get("SAWTOOTH_TRACKER_LIBRARY")
        lib, why = cuda_native.load(torch, library, (library or "")[:-3] + ".torch")
        if lib is None:
            return None, why
        stacks = 1 if self.options.get("stacks", "python") == "python" else 0
        if lib.sawtooth_tracker_connect(os.environ[wire.SOCKET_ENV].encode(), stacks,
                                        int(self.options.get("delivery_ms", 50))) != 0:
            return None, lib.sawtooth_tracker_error().decode(errors="replace")
        self.tracker = lib
        marks = cuda_native.module_marks(library)
        if self.modules is not None and marks is not None:
            self.modules.use_native(marks)
        return NativeCpu(lib, self.ch), None

    def _model_watch(self, torch):
        from .rungs import ModelWatch, Rung
        rung = None
        if self.options.get("rung"):
            try:
                rung = Rung(torch, self.ch, self.options["rung"])
            except ValueError as e:
                self.ch.notice("warning", f"--rung: {e}; the program runs unchanged")
        return ModelWatch(torch, self.ch, rung)

    def on_cuda_init(self):
        torch = self.torch
        try:
            history = History(torch, self.ch, self.options.get("stacks", "python") == "python",
                              int(self.options.get("max_entries", 200_000)))
            history.install_patch(self.guard)
            mode = self.options.get("mode", "auto")
            symbolizer = history.stacks and self._import_stack_symbolizer()
            if mode in ("auto", "native"):
                lib, why = cuda_native.load(torch, os.environ.get("SAWTOOTH_TRACKER_LIBRARY"),
                                            os.environ.get("SAWTOOTH_TRACKER_LIBRARY", "")[:-3] + ".torch")
                if lib is not None:
                    try:
                        native = cuda_native.NativeCuda(lib, history, os.environ[wire.SOCKET_ENV],
                                                        int(self.options.get("delivery_ms", 50)))
                        native.start()
                        if symbolizer:
                            lib.sawtooth_tracker_use_torch_symbolizer()
                        self.cuda = native
                        marks = cuda_native.module_marks(os.environ.get("SAWTOOTH_TRACKER_LIBRARY"))
                        if self.modules is not None and marks is not None:
                            self.modules.use_native(marks)
                    except Exception as e:
                        why = str(e)
                if self.cuda is None:
                    self.ch.notice("info" if mode == "auto" else "warning",
                                   f"PyTorch's allocator is recorded through its public history API ({why})")
            if self.cuda is None:
                self.cuda = PortableCuda(torch, self.ch, history)
                self.cuda.start()
            self.ch.meta({"shim_mode": self.cuda.mode})
            torch._C._cuda_attach_out_of_memory_observer(self.guard.wrap("recording a CUDA out-of-memory error",
                                                                         self.on_oom))
        except Exception as e:  # e.g. the cudaMallocAsync backend has no history
            self.ch.notice("warning", f"PyTorch's CUDA allocator is not recorded ({type(e).__name__}: {e}); driver "
                                      "allocations and device memory still are")
        try:  # the ladder's step-time rows look its throughput up by name; CUDA is initialised here
            index = torch._C._cuda_getDevice()
            props = torch.cuda.get_device_properties(index)
            self.ch.meta({"device_name": str(props.name), "device_total_bytes": str(int(props.total_memory)),
                          "device_index": str(index), "device_compute_capability": f"{props.major}.{props.minor}"})
        except Exception as e:
            self.guard.report("reading the device's name", e)
        if self.cpu is not None and self.options.get("cpu", "auto") == "auto":
            self.cpu_stop_pending = True  # at the next step boundary: not inside the operator that started CUDA
        self._reclaim_cupti()  # from Kineto's CPU-only session, for the allocations before that boundary

    def _import_stack_symbolizer(self):
        """PyTorch's stack symbolizer imports torch._inductor.codecache the first time it runs. Our
        tracker symbolizes on its own thread, where that import would race the program's own
        imports, and Python then hands one of them a half-initialised module (an ImportError in
        the program, seen on the H200). So it is imported here, once, on the program's thread."""
        if "torch._inductor.codecache" in sys.modules:
            return True
        try:
            importlib.import_module("torch._inductor.codecache")
            return True
        except Exception as e:
            self.ch.notice("warning", f"torch._inductor.codecache did not import ({type(e).__name__}: {e}); "
                                      "Python stacks name frames of compiled code by the generated file")
            return False

    # -- during the run ------------------------------------------------------------------------------
    def quiet_point(self):
        if self.cpu is not None:
            if self.cpu_stop_pending:
                self.cpu_stop_pending = False
                self.cpu.cut(final=True)
                self.cpu = None
                self._reclaim_cupti()
            elif self.cpu.cut() and self.cuda is not None:
                self._reclaim_cupti()
        if self.cuda is not None:
            self.cuda.poll()
        self.ch.flush()  # the step's phase markers and tags, now rather than after the delay

    def pause(self, paused, parts=PAUSABLE):
        """See sawtooth_shim.pause_recording(). True if the state changed."""
        if self.cuda is None or not hasattr(self.cuda, "pause") or paused == (self.paused_parts is not None):
            return False
        parts = self.paused_parts if not paused else tuple(p for p in PAUSABLE if p in parts)
        if "module-tags" in parts and hasattr(self.cuda, "tag_modules"):
            self.cuda.tag_modules(not paused)
        if "allocator" in parts and not self.cuda.pause(paused):
            return False
        if "phases" in parts and self.phases is not None:
            self.phases.paused = paused
        if "modules" in parts and self.modules is not None:
            self.modules.set_paused(paused)
        injected = (1 if "cupti" in parts else 0) | (2 if "sampler" in parts else 0)
        lib = self._cupti_library() if injected else None
        if lib is not None:
            lib.sawtooth_cupti_pause(injected if paused else 0)
        self.paused_parts = parts if paused else None
        return True

    def on_oom(self, device, alloc, device_limit, device_free):
        # PyTorch passes the request, what the process may use (the fraction's allowance when one
        # is set, else the device's total) and the device's free memory; its lock is free here, so
        # its counters are those of the failure.
        try:
            free, total = self.torch.cuda.mem_get_info(device)
        except Exception:
            free, total = device_free, 0
        try:
            allocated = self.torch.cuda.memory_allocated(device)
        except Exception:
            allocated = None
        state = {"result": "out_of_memory", "oom.device": device, "oom.requested_bytes": alloc,
                 "oom.device_limit_bytes": device_limit, "oom.device_free_bytes": device_free,
                 "oom.device_total_bytes": total or device_free}
        if allocated is not None:
            state["oom.allocated_bytes"] = allocated
        self.ch.meta(state)
        self.ch.notice("warning", f"CUDA out of memory on cuda:{device}: {alloc} bytes asked for, {device_free} free "
                                  f"on the device, {allocated} allocated by PyTorch (it may use {device_limit})")
        if self.cuda is not None:
            self.cuda.poll(force=True)  # the history up to the failure, in case the program dies now

    def _patch_profiler(self):
        profiler = self.torch.autograd.profiler
        shim, guard = self, self.guard

        def starting(config=None, activities=None, *rest):
            shim.program_profiler_starting(activities)

        def nothing():
            pass

        what = "making room for the program's torch.profiler"
        profiler._prepare_profiler = first(profiler._prepare_profiler, guard, what, starting, nothing)
        profiler._enable_profiler = first(profiler._enable_profiler, guard, what, starting, nothing)
        profiler._disable_profiler = then(profiler._disable_profiler, guard,
                                          "resuming after the program's torch.profiler",
                                          lambda *args: shim.program_profiler_stopped())
        # The legacy profiler (torch.autograd.profiler_legacy.profile) has calls of its own.
        legacy = sys.modules.get("torch.autograd.profiler_legacy")
        if legacy is not None and hasattr(legacy, "_enable_profiler_legacy"):
            legacy._enable_profiler_legacy = first(legacy._enable_profiler_legacy, guard, what,
                                                   lambda *args: shim.program_profiler_starting(()), nothing)
            legacy._disable_profiler_legacy = then(legacy._disable_profiler_legacy, guard,
                                                   "resuming after the program's legacy profiler",
                                                   lambda *args: shim.program_profiler_stopped())

    @staticmethod
    def _cupti_injected():
        path = os.environ.get("SAWTOOTH_CUPTI_LIBRARY")
        return bool(path) and os.environ.get("CUDA_INJECTION64_PATH") == path

    def _cupti_library(self):
        path = os.environ.get("SAWTOOTH_CUPTI_LIBRARY")
        if not self._cupti_injected():
            return None
        try:
            return ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            return None  # CUDA has not started: the library is not loaded yet

    def _reclaim_cupti(self):
        """Our profiler session (CPU only) has ended or restarted: Kineto may have taken CUPTI's
        activity buffers from the CUPTI library, or finalized CUPTI; it takes them back."""
        lib = self._cupti_library()
        if lib is not None:
            lib.sawtooth_cupti_reclaim()

    def program_profiler_starting(self, activities):
        if self.profiling:
            return
        self.profiling = True
        if self.cpu is not None:
            self.cpu.pause()
        names = {str(a).rsplit(".", 1)[-1] for a in activities or ()}
        if "CUDA" in names:
            os.environ["SAWTOOTH_CUPTI_YIELD"] = "1"  # read by our CUPTI library if CUDA starts later
            lib = self._cupti_library()
            if lib is not None:
                lib.sawtooth_cupti_yield()
            self.ch.notice("warning", "the program runs torch.profiler with CUDA activity: Kineto needs CUPTI, so "
                                      "driver allocations, kernels and NVTX ranges pause until it stops; PyTorch's "
                                      "allocator events are still recorded")

    def program_profiler_stopped(self):
        if not self.profiling:
            return
        self.profiling = False
        if self.cpu is not None:
            self.cpu.resume()
        if os.environ.pop("SAWTOOTH_CUPTI_YIELD", None):
            lib = self._cupti_library()
            if lib is not None:
                lib.sawtooth_cupti_resume()
        else:  # a CPU-only session of the program's: Kineto may still have taken CUPTI's buffers
            self._reclaim_cupti()

    # -- end -----------------------------------------------------------------------------------------
    def final(self, reason):
        if self.finished:
            return
        self.finished = True
        try:
            call = self.guard.call
            if self.cpu is not None:
                call("the last delivery of CPU allocations", self.cpu.cut, final=True)
            if self.cuda is not None:
                call("the last delivery of PyTorch's CUDA allocator", self.cuda.final, reason)
            if self.tracker is not None:  # stopping twice is nothing (the CUDA path may have)
                call("the last delivery of the tracker", self.tracker.sawtooth_tracker_stop, reason.encode())
            call("reading the program's allocator statistics", self._allocator_statistics)
            call("naming the shim that ran", self._say_what_ran)
        finally:
            try:
                self.ch.bye(reason)
                self.ch.close()
            except Exception:
                pass

    def final_cupti(self, reason):
        """The CUPTI library's last delivery, where the process will not reach its atexit."""
        lib = self._cupti_library()
        if lib is not None:
            self.guard.call("the last delivery of the CUPTI library", lib.sawtooth_cupti_finish, reason.encode())

    def _say_what_ran(self):
        """The file says which shim recorded this process, on the CPU too (`shim_mode`)."""
        if self.cuda is not None or self.torch is None:
            return
        native = self.tracker is not None
        self.ch.meta({"shim_mode": ("native" if native else "cpu") if self.cpu_recorded else "none"})
        if self.cpu_recorded and not native and self.options.get("stacks", "python") == "python":
            # The profiler's memory events carry no stack (its Python tracer would, at several
            # times the program's run time): the file says so rather than stacks=python, and so
            # does sawtooth-record, since the user asked for stacks.
            why = ("CPU allocations are recorded without stacks: the profiler's memory events "
                   "carry none, and its Python tracer would cost several times the program's run time; --stacks "
                   "python applies to CUDA allocations")
            self.ch.meta({"stacks": "none", "stacks_note": why})
            self.ch.notice("info", f"no call stacks in this recording: {why}")
        asked = self.options.get("mode", "auto")
        if asked in ("native", "portable"):
            how = "the tracker library" if native else "the profiler's memory events"
            self.ch.notice("info", f"--shim {asked}: this process never used CUDA" +
                           (f"; its CPU allocations were recorded through {how}" if self.cpu_recorded else ""))

    def _allocator_statistics(self):
        """What the program itself would read from torch.cuda, for comparison with the trace."""
        torch = self.torch
        if torch is None or not torch.cuda.is_initialized():
            return
        values = {}
        for d in range(torch.cuda.device_count()):
            stats = torch.cuda.memory_stats(d)
            if not stats:
                continue
            for key, name in (("allocated_bytes.all.peak", "max_memory_allocated"),
                              ("requested_bytes.all.peak", "max_requested_bytes"),
                              ("reserved_bytes.all.peak", "max_memory_reserved"),
                              ("num_ooms", "num_ooms")):
                if key in stats:
                    values[f"program.cuda:{d}.{name}"] = stats[key]
        if values:
            self.ch.meta(values)

    def after_fork(self):
        """In a forked child (a DataLoader worker): nothing of this is ours to send."""
        self.finished = True
        self.ch.forget()
        if self.cuda is not None:
            self.cuda.after_fork()
        if isinstance(self.cpu, NativeCpu):
            self.cpu.after_fork()
        elif self.cpu is not None and self.cpu.running:
            try:
                self.torch._C._autograd._disable_profiler()
            except Exception:
                pass
        if self.tracker is not None:
            self.tracker.sawtooth_tracker_after_fork_child()
        self.cpu = None

