"""A frozen copy of capture/shim/sawtooth_shim/modules.py as it was at be54fdd (before its hooks
were cut down to one native call each): the reference module_hooks_bench.py measures against.
Not used by the shim."""
import threading
import time

from sawtooth_shim import wire
from sawtooth_shim.guard import Identities

_WHAT = "tracking the program's modules"
_MAX_MODULES = 1_000_000  # the recorder's bound too: a program that makes modules without end stops being tracked


class _Stacks(threading.local):
    def __init__(self):
        self.calls = []  # (module id, how it was marked: the tracker's functions or None) of this thread's open calls


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
        graph_task = getattr(torch._C, "_current_graph_task_id", None)
        self.in_backward = (lambda: graph_task() != -1) if graph_task is not None else (lambda: False)

    # -- installation --------------------------------------------------------------------------------
    def install(self):
        module = self.torch.nn.modules.module
        self.hooks = [module.register_module_forward_pre_hook(self.guard.wrap(_WHAT, self.enter)),
                      module.register_module_forward_hook(self.guard.wrap(_WHAT, self.exit), always_call=True)]

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
        """The tracker library runs: marks go to it (it stamps and sends them with the allocations)."""
        self.native = (enter, exit_)

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
