"""Which of the program's modules is running, so that every byte can be given to the module that
allocated it (issue 23).

Two global module hooks, a forward pre-hook and an always-called forward hook (no hook is put on
the program's modules), mark each call of a module on its thread: the recorder gives an event to
the innermost module running on the thread that allocated it. With the native tracker the marks
go to the tracker library (one ctypes call each, where the allocator's callback reads them on the
allocating thread, and backward finds its module through autograd's own link: see
capture/inject/module_context.h); otherwise they are records on the live stream, stamped with the
thread, and the recorder attributes by time.

Backward without the tracker (the CPU, --shim portable): no allocation says which autograd node
made it, so the module's output carries the link instead. Its forward hook puts a tensor hook on
the first output that needs a gradient (one per tensor: an inner module whose output its parent
returns keeps the tensor); autograd calls it when that gradient is complete, which is when the
module's backward begins, and the hook marks the module running backward on that thread until the
next module's mark, or backward's end (a callback queued on autograd's engine). The recorder ends
a backward call where the next one begins on the thread.

The native hooks run on every module call of the program, so they are cut to the bone (what the
H200 measured: bench/results): one closure each with its guard inline (no wrapper call), the
module's id from the identity table's dict without a method call, no stack of our own (the
tracker keeps the thread's open calls and ignores an exit it did not see enter), no graph-task
probe (the tracker tells a recompute from the autograd node running), and a ctypes call without
argument conversion. bench/capture/shim/module_hooks_bench.py measures them against the former
bodies.

Names: a module first seen is a root (named by its class, "GPT2LMHeadModel"; "#2" when another
root of that name is alive), and every module under it is named as named_modules() names it
("transformer.h.0.attn"), each with its own parameters' bytes (a tied weight counted once). A
module run inside a known one without being its submodule (built on the fly) is named under the
module running it. torch.compile's OptimizedModule is its original module: the compiled region
is one module (dynamo runs our hooks as nothing while it traces). A forward that runs while
backward does (torch.utils.checkpoint recomputing, either form) is a recompute.

A guest's rules (guard.py): every hook body guarded, nothing of the program's kept alive (modules
and parameters are remembered by identity while they live, and only ids and names are kept).
"""
import threading
import time

from . import wire
from .guard import Identities

_WHAT = "tracking the program's modules"
_MAX_MODULES = 1_000_000  # the recorder's bound too: a program that makes modules without end stops being tracked


class _Stacks(threading.local):
    def __init__(self):
        self.calls = []  # (module id, how it was marked: the tracker's functions or None) of this thread's open calls
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
        self.hooks = []
        self.native = None             # (enter, exit) of the tracker library, once it runs
        self.paused = False
        self.full = False
        self.hooked = Identities()     # outputs carrying a backward mark of ours (the portable path)
        graph_task = getattr(torch._C, "_current_graph_task_id", None)
        self.graph_task = graph_task if graph_task is not None else (lambda: -1)
        self.in_backward = (lambda: graph_task() != -1) if graph_task is not None else (lambda: False)

    # -- installation --------------------------------------------------------------------------------
    def install(self):
        module = self.torch.nn.modules.module
        if self.native is not None:
            enter, exit_ = self._native_hooks()
        else:
            enter, exit_ = self.guard.wrap(_WHAT, self.enter), self.guard.wrap(_WHAT, self.exit)
        self.hooks = [module.register_module_forward_pre_hook(enter),
                      module.register_module_forward_hook(exit_, always_call=True)]

    def _native_hooks(self):
        """The hooks that mark calls in the tracker library: each as cheap as a guarded hook can be
        (module docstring). A mark of 0 lets the tracker choose forward or recompute."""
        native_enter, native_exit = self.native
        entries = self.ids._entries  # Identities' own table: id -> (weak reference or None, id of ours)
        compiling, report, discover = self.guard.compiling, self.guard.report, self.discover

        def enter(module, args):
            try:
                if compiling():
                    return
                entry = entries.get(id(module))
                if entry is not None and (entry[0] is None or entry[0]() is module):
                    native_enter(entry[1], 0)
                    return
                ident = discover(module)
                if ident is not None:
                    native_enter(ident, 0)
            except Exception as e:  # never the program's problem
                report(_WHAT, e)

        def exit_(module, args, output):
            try:
                if compiling():
                    return
                entry = entries.get(id(module))
                if entry is not None and (entry[0] is None or entry[0]() is module):
                    native_exit(entry[1])
            except Exception as e:
                report(_WHAT, e)
        return enter, exit_

    def set_paused(self, paused):
        """pause_recording(): the hooks come off (so that a paused block costs what an unrecorded
        one does) and go back on; calls open on this thread are forgotten (a pause falls between
        steps)."""
        if paused == self.paused:
            return
        self.paused = paused
        if paused:
            for h in self.hooks:
                h.remove()
            self.hooks = []
            self.stacks.calls.clear()
        else:
            self.install()

    def is_ours(self, hook_id):
        return any(h.id == hook_id for h in self.hooks)

    def use_native(self, enter, exit_):
        """The tracker library runs: marks go to it (it stamps and sends them with the allocations),
        through the native hooks from now on. (A call open now was marked on the live stream; its
        exit is not, so the recorder never closes it: the switch happens once, when CUDA starts.)"""
        self.native = (enter, exit_)
        if self.hooks and not self.paused:
            for h in self.hooks:
                h.remove()
            self.install()

    # -- calls -----------------------------------------------------------------------------------------
    def enter(self, module, args):
        if self.paused:
            return
        ident = self.ids.get(module)
        if ident is None:
            ident = self.discover(module)
            if ident is None:
                return
        pass_ = wire.RECOMPUTE if self.in_backward() else wire.FORWARD
        native = self.native
        self.stacks.calls.append((ident, native))  # its exit goes the way its enter went
        if native is not None:
            native[0](ident, pass_)
        else:
            self.ch.record(wire.MODULE_ENTER, range_id=threading.get_ident(), module=ident, pass_=pass_)

    def exit(self, module, args, output):
        calls = self.stacks.calls
        if not calls:
            return
        ident = self.ids.get(module)
        if calls[-1][0] != ident:
            # A call whose pre-hook did nothing (paused, or found while compiling): only a call we
            # marked is ended, with any left open inside it.
            found = [i for i in range(len(calls)) if calls[i][0] == ident]
            if not found:
                return
            del calls[found[-1] + 1:]
        native = calls.pop()[1]
        if native is not None:
            native[1](ident)
        else:
            self.ch.record(wire.MODULE_EXIT, range_id=threading.get_ident(), module=ident)
            self._mark_backward_of(ident, output)

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
                self.ids.add(module, ident)
            return ident
        calls = self.stacks.calls
        if calls:  # run by a known module without being its submodule: named under it
            parent = calls[-1][0]
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
            self.ids.add(sub, ident)
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
