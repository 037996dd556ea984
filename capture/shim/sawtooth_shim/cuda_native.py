"""The native path for PyTorch's CUDA allocator: our tracker library, attached to the allocator's
trace, streams every event with its Python stack from its own thread. Loaded only into the very
torch build it was compiled against (version and git commit compared first); otherwise the
portable path (cuda_portable.py) records instead.
"""
import ctypes
import os
import sys


def load(torch, library, build_file):
    """(library, None) or (None, why not)."""
    if not library or not os.path.exists(library):
        return None, "the tracker library is not installed"
    try:
        with open(build_file) as f:
            version, git = (f.read().split("\n") + ["", ""])[:2]
    except OSError:
        return None, "the tracker's torch build is unknown"
    mine = (torch.__version__, getattr(torch.version, "git_version", ""))
    if mine != (version, git):
        return None, f"the tracker was built for torch {version} ({git[:10]}), the program has {mine[0]} ({mine[1][:10]})"
    try:
        lib = ctypes.CDLL(library)
    except OSError as e:
        return None, f"the tracker library does not load: {e}"
    lib.sawtooth_tracker_attach.restype = ctypes.c_int
    lib.sawtooth_tracker_idle_calls.restype = ctypes.c_ulonglong
    lib.sawtooth_tracker_start.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    lib.sawtooth_tracker_start.restype = ctypes.c_int
    lib.sawtooth_tracker_pause.argtypes = [ctypes.c_int]
    lib.sawtooth_tracker_pause.restype = None
    lib.sawtooth_tracker_stop.argtypes = [ctypes.c_char_p]
    lib.sawtooth_tracker_stop.restype = None
    lib.sawtooth_tracker_after_fork_child.restype = None
    lib.sawtooth_tracker_error.restype = ctypes.c_char_p
    lib.sawtooth_tracker_dropped.restype = ctypes.c_ulonglong
    lib.sawtooth_tracker_connect.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    lib.sawtooth_tracker_connect.restype = ctypes.c_int
    lib.sawtooth_tracker_cpu_attach.restype = ctypes.c_int
    lib.sawtooth_tracker_cpu_detach.restype = None
    lib.sawtooth_tracker_probe.argtypes = [ctypes.c_int]
    lib.sawtooth_tracker_probe.restype = None
    lib.sawtooth_tracker_tag_modules.argtypes = [ctypes.c_int]
    lib.sawtooth_tracker_tag_modules.restype = None
    lib.sawtooth_tracker_use_torch_symbolizer.restype = None
    return lib, None


class ModuleMarks:
    """The tracker library's marks of each module call, Python builtins of its own
    (capture/inject/module_builtins.h): enter(module) -> its id or None, exit(id),
    remember(module, id), forget(id(module)). None of them raises."""

    def __init__(self, enter, exit_, remember, forget, call_descriptor=None, call_pass_through=None):
        self.enter, self.exit, self.remember, self.forget = enter, exit_, remember, forget
        # Module.__call__ in C (capture/inject/module_builtins.h), where the library has it
        self.call_descriptor, self.call_pass_through = call_descriptor, call_pass_through


def module_marks(library):
    """The tracker library's ModuleMarks, or None (then modules go over the live stream)."""
    if sys.version_info >= (3, 13) and not sys._is_gil_enabled():
        return None  # the library's id map is guarded by the GIL
    try:
        make = ctypes.PyDLL(library).sawtooth_tracker_module_builtins
    except (OSError, AttributeError, TypeError):
        return None
    make.argtypes = [ctypes.py_object]
    make.restype = ctypes.c_int
    builtins = []
    if make(builtins) != 0 or len(builtins) not in (4, 6):
        return None
    return ModuleMarks(*builtins)


class NativeCuda:
    mode = "native"

    def __init__(self, lib, history, socket_path, interval_ms):
        self.lib = lib
        self.history = history
        self.socket_path = socket_path
        self.interval_ms = interval_ms
        self.started = False
        self.paused_history = None  # while paused: whether PyTorch's history was ours to turn back on

    def start(self):
        # Without stacks the history is needed only by a torch whose allocator calls trackers
        # solely while it is on: a probe tells, and where it is not needed the program is spared
        # its ring and per-event bookkeeping.
        needs_history = self.history.stacks or not self._tracker_fires_without_history()
        # The tracker first, then history, so that no entry falls between the two.
        rc = self.lib.sawtooth_tracker_start(self.socket_path.encode(), 1 if self.history.stacks else 0, self.interval_ms)
        if rc != 0:
            raise RuntimeError(f"the tracker did not start: {self.lib.sawtooth_tracker_error().decode(errors='replace')}")
        self.started = True
        self.history.ch.meta({"shim_history": "on" if needs_history else "off"})
        if not needs_history:
            return
        self.history.max_entries = 1  # the tracker streams everything: the ring only has to exist
        try:
            self.history.enable()
        except Exception:
            self.final("PyTorch's history could not be turned on")
            raise

    def _tracker_fires_without_history(self):
        """Whether the allocator hands its entries to the (attached) tracker while PyTorch's history
        is off: one 1-byte block through the caching allocator, counted and not sent (probing: the
        tracker may be sending already, for the CPU's allocations). Its segment is given back at
        once, or the trace would lack a segment the program then uses (torch.cuda.empty_cache()
        does nothing until CUDA's lazy initialisation, this, returns)."""
        torch = self.history.torch
        if torch._C._cuda_isHistoryEnabled() or self.lib.sawtooth_tracker_attach() != 0:
            return False
        before = self.lib.sawtooth_tracker_idle_calls()
        self.lib.sawtooth_tracker_probe(1)
        try:
            torch.cuda.caching_allocator_delete(torch.cuda.caching_allocator_alloc(1))
            torch._C._cuda_emptyCache()
        except Exception:
            return False
        finally:
            self.lib.sawtooth_tracker_probe(0)
        return self.lib.sawtooth_tracker_idle_calls() > before

    def pause(self, paused):
        """Stops (or resumes) recording in place, PyTorch's history included: for measuring the
        recording's cost inside one process. True if the state changed."""
        if not self.started or paused == (self.paused_history is not None):
            return False
        if paused:
            self.paused_history = self.history.on
            if self.history.on:
                self.history.disable()
            self.lib.sawtooth_tracker_pause(1)
        else:
            self.lib.sawtooth_tracker_pause(0)  # then history, so that no entry falls between the two
            if self.paused_history:
                self.history.enable()
            self.paused_history = None
        return True

    def tag_modules(self, on):
        """Whether allocations carry the module running where they were made (the marks go either
        way): pause_recording("module-tags") measures what the tagging costs apart."""
        tag = getattr(self.lib, "sawtooth_tracker_tag_modules", None)
        if self.started and tag is not None:
            tag(1 if on else 0)

    def poll(self, final=False, force=False):
        pass

    def final(self, reason):
        if self.started:
            self.lib.sawtooth_tracker_stop(reason.encode())  # ctypes lets the GIL go: the last drain needs it
            self.started = False

    def after_fork(self):
        self.lib.sawtooth_tracker_after_fork_child()
        self.started = False
