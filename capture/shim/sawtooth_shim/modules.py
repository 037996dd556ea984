"""Which of the program's modules is running, so that every byte can be given to the module that
allocated it (issue 23).

Module.__call__ is wrapped (no hook is put on the program's modules, and no global module hook
is registered): the wrapper marks each call of a module on its thread, and the recorder gives an
event to the innermost module running on the thread that allocated it. A wrapper, not PyTorch's
global forward hooks, because any global hook takes every module call off Module._call_impl's fast
path: two empty global hooks cost 10.6 us a call on the development CPU against 3.1 us for the
wrapper with its marks (bench/results/cpu-module-hooks-2026-12-02.md; on the H200 the hooks were
+7.4 % of GPT-2 small's step). It also keeps torch.compile(module)'s warning about global hooks
away. The wrapper is compiled under the guard's wrapper file name (a warning PyTorch raises inside
forward names the program's line, as unrecorded); a traceback through a module shows its frame.

With the native tracker, Module.__call__ is the library's own in C (capture/inject/module_builtins.h):
`module(...)` is marked with no Python frame of ours, which had cost GPT-2 about 1 % of an H100 step
with Python stacks (the wrapper's call, and its frame in every allocation's stack); so is
`module.__call__(...)`, and `super().__call__(...)` in a subclass's own __call__ (every decoder layer
of transformers is a GradientCheckpointingLayer, which calls it so). A module it does not know yet,
and every read of `Module.__call__` from the class, go to the Python wrapper.
From the program's first torch.compile on, the Python wrapper is Module.__call__ again (dynamo
guards the class's dict entry of what it traced, which must be a function).

With the native tracker the marks go to the tracker library (two builtins of its own per call,
which also find the module's id: capture/inject/module_builtins.h; the allocator's callback reads
the marks on the allocating thread, and backward finds its module through autograd's own link: see
capture/inject/module_context.h; the tracker keeps the thread's open calls and tells a recompute
from the autograd node running); otherwise they are records on the live stream, stamped with the
thread, and the recorder attributes by time.

Backward without the tracker (the CPU, --shim portable): no allocation says which autograd node
made it, so the module's output carries the link instead. When a module returns, a tensor hook
goes on the first output that needs a gradient (one per tensor: an inner module whose output its
parent returns keeps the tensor); autograd calls it when that gradient is complete, which is when
the module's backward begins, and the hook marks the module running backward on that thread until
the next module's mark, or backward's end (a callback queued on autograd's engine). The recorder
ends a backward call where the next one begins on the thread.

Names: a module first seen is a root (named by its class, "GPT2LMHeadModel"; "#2" when another
root of that name is alive), and every module under it is named as named_modules() names it
("transformer.h.0.attn"), each with its own parameters' bytes (a tied weight counted once). A
module run inside a known one without being its submodule (built on the fly) is named under the
module running it. torch.compile's OptimizedModule is its original module: the compiled region
is one module (while dynamo traces, the wrapper passes every call straight through). A forward that runs while
backward does (torch.utils.checkpoint recomputing, either form) is a recompute.

A guest's rules (guard.py): everything the wrapper does guarded, nothing of the program's kept alive (modules
and parameters are remembered by identity while they live, and only ids and names are kept).
"""
import sys
import threading
import time

from . import wire
from . import guard
from .guard import Identities
from .import_watch import ImportWatcher

_WHAT = "tracking the program's modules"
_MAX_MODULES = 1_000_000  # the recorder's bound too: a program that makes modules without end stops being tracked


class _Stacks(threading.local):
    def __init__(self):
        self.calls = []  # ids of this thread's open calls marked on the live stream
        self.backward_module = None  # the module marked running backward on this thread (the portable path)
        self.backward_task = None    # the graph task that mark is in


def _first_needing_grad(torch, output):
    """The first tensor of a module's output that needs a gradient (a tensor, or one in a tuple,
    list or dict such as transformers' ModelOutput), or None."""
    tensor = torch.Tensor
    if isinstance(output, tensor):
        return output if output.requires_grad else None
    if isinstance(output, dict):
        items = output.values()
    elif isinstance(output, (tuple, list)):
        items = output
    else:
        return None
    for item in items:
        if isinstance(item, tensor) and item.requires_grad:
            return item
    return None


class Modules:
    def __init__(self, torch, channel, guard):
        self.torch = torch
        self.ch = channel
        self.guard = guard
        self.ids = Identities()        # module -> id, while it lives
        self.owners = Identities()     # parameter -> its module's id, while it lives
        self.paths = []                # id -> its name below its root ("" for a root), for naming later finds
        self.roots = {}                # root name -> Identities of the live roots of that name
        self.stacks = _Stacks()
        self.installed = None          # (Module.__call__ before us, our wrapper) while installed
        self.removed = False           # uninstalled while another wrapper sat on ours: ours passes through
        self.marks = None              # the tracker library's ModuleMarks (cuda_native.py), once it runs
        self.python_call = None        # (original, our Python wrapper of it)
        self.native_call = None        # the library's Module.__call__ in C, once made
        self.dynamo_watched = False
        self.compiled = False          # the program compiled: the Python wrapper only, from then on
        self.paused = False
        self.full = False
        self.hooked = Identities()     # outputs carrying a backward mark of ours (the portable path)
        graph_task = getattr(torch._C, "_current_graph_task_id", None)
        self.graph_task = graph_task if graph_task is not None else (lambda: -1)
        self.in_backward = (lambda: graph_task() != -1) if graph_task is not None else (lambda: False)

    # -- installation --------------------------------------------------------------------------------
    def install(self):
        """Module.__call__ wrapped (module docstring): the program's modules are left as they are.
        With the tracker library, the wrapper is the library's own in C (module_builtins.h), which
        hands a module it does not know yet to the Python one."""
        if self.installed is not None:
            return
        cls = self.torch.nn.Module
        original = cls.__dict__["__call__"]
        if self.python_call is None or self.python_call[0] is not original:
            self.python_call = (original, guard.module_call_wrapper(original, self))
        wrapper = self._native_call(cls, original) or self.python_call[1]
        cls.__call__ = wrapper
        self.installed = (original, wrapper)

    def uninstall(self):
        """Module.__call__ as it was, if nobody wrapped it after us (else ours stays and passes
        every call through: removing it would remove theirs)."""
        installed, self.installed = self.installed, None
        if installed is None:
            return
        cls = self.torch.nn.Module
        if cls.__dict__.get("__call__") is installed[1]:
            cls.__call__ = installed[0]
        else:
            self.removed = True
            if installed[1] is self.native_call:
                self.marks.call_pass_through(True)

    # -- Module.__call__ in C ---------------------------------------------------------------------------
    def _native_call(self, cls, original):
        """The library's Module.__call__ for `original` (module_builtins.h), or None: no library
        (yet), a library without it, no torch.compiler flag to pass traced calls by, or a program
        that compiles. `module(...)` and `module.__call__(...)` run it without a Python frame;
        `Module.__call__` reads as our Python wrapper. Dynamo traces that wrapper but guards what it
        traced by the class's own dict entry, which must then be a function: from the program's
        first compilation on (dynamo's start callback, before it traces anything) the Python
        wrapper takes the C one's place for good."""
        make = getattr(self.marks, "call_descriptor", None)
        compiler = sys.modules.get("torch.compiler")
        flags = getattr(compiler, "__dict__", None)
        if self.compiled or make is None or flags is None or "_is_compiling_flag" not in flags:
            return None
        if not self.dynamo_watched:
            self.dynamo_watched = True
            dynamo = sys.modules.get("torch._dynamo")
            if dynamo is not None:
                self._dynamo_imported(dynamo)
            else:
                sys.meta_path.insert(0, ImportWatcher("torch._dynamo", self.guard.wrap(_WHAT, self._dynamo_imported)))
            if self.compiled:
                return None
        descriptor = make(cls, original, self.python_call[1], flags, "_is_compiling_flag")
        if descriptor is not None:
            self.native_call = descriptor
        return descriptor

    def _dynamo_imported(self, dynamo):
        """Dynamo is there: told to call us back when it starts compiling; where it cannot be, the
        Python wrapper now."""
        handler = getattr(dynamo, "callback_handler", None)
        try:
            handler.register_start_callback(self._compile_starts)
        except Exception:
            self._compile_starts(None)

    def _compile_starts(self, _args):
        """Dynamo starts compiling (or cannot tell us when it does): the Python wrapper in the C
        one's place, for the rest of the run."""
        if self.compiled:
            return
        self.compiled = True
        try:  # dynamo's own call: nothing may reach it
            installed = self.installed
            cls = self.torch.nn.Module
            if installed is not None and installed[1] is self.native_call and cls.__dict__.get("__call__") is installed[1]:
                cls.__call__ = self.python_call[1]
                self.installed = (installed[0], self.python_call[1])
        except Exception as e:
            self.guard.report(_WHAT, e)

    def call_enters(self, module):
        """A call of module begins (the wrapper, not while compiling or paused): its id and how it
        was marked (the tracker's exit, or None for the live stream), or None when not tracked."""
        entry = self.ids._entries.get(id(module))
        if entry is not None and (entry[0] is None or entry[0]() is module):
            ident = entry[1]
        else:
            ident = self.discover(module)
            if ident is None:
                return None
        marks = self.marks
        if marks is not None:  # a module named just now, or one the library could not be told of
            ident = marks.enter(module)
            return None if ident is None else (ident, marks.exit)
        pass_ = wire.RECOMPUTE if self.in_backward() else wire.FORWARD
        self.stacks.calls.append(ident)
        self.ch.record(wire.MODULE_ENTER, range_id=threading.get_ident(), module=ident, pass_=pass_)
        return ident, None

    def call_exits(self, marked, output, raised):
        """The call call_enters marked has returned output (or raised): its exit goes the way its
        enter went."""
        ident, native_exit = marked
        if native_exit is not None:
            native_exit(ident)
            return
        calls = self.stacks.calls
        if calls and calls[-1] == ident:
            calls.pop()
        self.ch.record(wire.MODULE_EXIT, range_id=threading.get_ident(), module=ident)
        if not raised:
            self._mark_backward_of(ident, output)

    def set_paused(self, paused):
        """pause_recording(): Module.__call__ goes back to the original (so that a paused block
        costs what an unrecorded one does) and the wrapper comes back on; calls open on this thread
        are forgotten (a pause falls between steps)."""
        if paused == self.paused:
            return
        self.paused = paused
        if paused:
            self.uninstall()
            self.stacks.calls.clear()
        else:
            self.removed = False
            self.install()

    def use_native(self, marks):
        """The tracker library runs: marks go to it (it stamps and sends them with the allocations)
        from the next call on; a call open now ends the way it began, on the live stream. It is
        told every live module named so far, and of each one's end."""
        self.marks = marks
        self.ids.on_gone = marks.forget
        for ref, ident in list(self.ids._entries.values()):
            module = ref() if ref is not None else None
            if module is not None:
                marks.remember(module, ident)
        # The C wrapper in the Python one's place, if nobody wrapped Module.__call__ since.
        installed = self.installed
        cls = self.torch.nn.Module
        if installed is not None and not self.removed and cls.__dict__.get("__call__") is installed[1]:
            native = self._native_call(cls, installed[0])
            if native is not None:
                cls.__call__ = native
                self.installed = (installed[0], native)

    def _remember(self, module, ident):
        ids = self.ids
        ids.add(module, ident)
        if self.marks is not None and ids._entries[id(module)][0] is not None:  # only what can be forgotten
            self.marks.remember(module, ident)

    # -- backward without the tracker ----------------------------------------------------------------
    def _mark_backward_of(self, ident, output):
        torch = self.torch
        if not torch.is_grad_enabled():
            return
        tensor = _first_needing_grad(torch, output)
        if tensor is None or tensor in self.hooked:
            return  # an inner module's output: the innermost module's mark stands
        self.hooked.add(tensor, True)
        call, begins = self.guard.call, self._backward_begins

        def backward_of_module(grad):
            call(_WHAT, begins, ident)
        tensor.register_hook(backward_of_module)

    def _backward_begins(self, ident):
        if self.paused:
            return
        stacks = self.stacks
        thread = threading.get_ident()
        task = self.graph_task()
        if stacks.backward_task != task:
            stacks.backward_task = task
            stacks.backward_module = None
            call, ends = self.guard.call, self._backward_ends
            self.torch.autograd.Variable._execution_engine.queue_callback(lambda: call(_WHAT, ends, stacks, thread))
        if stacks.backward_module == ident:
            return
        stacks.backward_module = ident
        self.ch.record(wire.MODULE_ENTER, range_id=thread, module=ident, pass_=wire.BACKWARD)

    def _backward_ends(self, stacks, thread):
        if stacks.backward_module is not None:
            self.ch.record(wire.MODULE_EXIT, range_id=thread, module=stacks.backward_module, pass_=wire.BACKWARD)
        stacks.backward_module = None
        stacks.backward_task = None

    # -- names -----------------------------------------------------------------------------------------
    def owner(self, tensor):
        """The id of the module whose parameter `tensor` is (wire.NO_MODULE for none)."""
        ident = self.owners.get(tensor)
        return wire.NO_MODULE if ident is None else ident

    def discover(self, module):
        """Names a module seen for the first time, with everything under it; its id."""
        if self.full:
            return None
        original = getattr(module, "_orig_mod", None)
        if original is not None and type(module).__name__ == "OptimizedModule":
            ident = self.ids.get(original)
            if ident is None:
                ident = self.discover(original)
            if ident is not None:
                self._remember(module, ident)
            return ident
        calls = self.stacks.calls
        if calls:  # run by a known module without being its submodule: named under it
            parent = calls[-1]
            below = self.paths[parent]
            return self._register(module, (below + "." if below else "") + type(module).__name__, parent)
        return self._register(module, "", None)

    def _root_name(self, module):
        base = type(module).__name__
        n = 1
        while True:
            name = base if n == 1 else f"{base}#{n}"
            live = self.roots.setdefault(name, Identities())
            if len(live) == 0:
                live.add(module, True)
                return name
            n += 1

    def _register(self, top, top_path, top_parent):
        """top and its submodules, parents first, in one Modules frame; tags their parameters.
        top_path: top's name below its root ("" when top is a root); top_parent: the running
        module it is named under (None for a root)."""
        entries, params = [], []
        ids_by_path = {}
        for path, sub in top.named_modules():
            if path and sub in self.ids:
                continue  # shared with a module named before: that name stays
            if len(self.paths) >= _MAX_MODULES:
                self.full = True
                self.ch.notice("warning", f"the program made more than {_MAX_MODULES} modules: later ones are not "
                                          "tracked")
                break
            ident = len(self.paths)
            if path:
                parent = ids_by_path.get(path.rsplit(".", 1)[0] if "." in path else "")
                if parent is None:
                    continue  # under a submodule left out above
                below = (top_path + "." if top_path else "") + path
                name = below
            else:
                parent = top_parent
                below = top_path
                name = top_path if top_parent is not None else self._root_name(top)
            ids_by_path[path] = ident
            self.paths.append(below)
            self._remember(sub, ident)
            own = 0
            for p in sub.parameters(recurse=False):
                if p in self.owners:
                    continue  # tied: the first module that holds it owns it
                self.owners.add(p, ident)
                try:
                    own += p.numel() * p.element_size()
                except Exception:  # a lazy module's parameter before its first call
                    pass
                params.append(p)
            entries.append(_module_entry(ident, wire.NO_MODULE if parent is None else parent, own, name,
                                         type(sub).__name__))
        if entries:
            self.ch.send_frame(wire.MODULES, b"".join(entries))
        if params:
            self._tag(params)
        return ids_by_path.get("")

    def _tag(self, params):
        pack, packed, owner = wire.RECORD.pack, [], self.owner
        now = time.monotonic_ns()
        for p in params:
            try:
                ptr, device = p.data_ptr(), p.get_device()
            except Exception:  # meta tensors, lazy parameters
                continue
            if ptr:
                packed.append(pack(now, ptr, 0, 0, wire.NO_STACK, device, wire.PARAMETER, wire.TAG, owner(p),
                                   wire.NO_PASS))
        if packed:
            self.ch.live_packed(packed)


def _module_entry(ident, parent, parameter_bytes, name, class_name):
    name_bytes = name.encode("utf-8", "replace")[:0xFFFF]
    class_bytes = class_name.encode("utf-8", "replace")[:0xFFFF]
    return wire.MODULE.pack(ident, parent, parameter_bytes, len(name_bytes), len(class_bytes)) + name_bytes + class_bytes
