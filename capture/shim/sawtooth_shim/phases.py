"""Phases and categories of a training loop the shim knows nothing about.

Phases, with the names the built-in workloads use, so that the same attribution rules apply:
  forward    from the first module call after a step boundary until backward starts (or the next
             top-level call when gradients are off, as in inference);
  backward   torch.autograd.backward / grad;
  recompute  a torch.utils.checkpoint function run again inside backward;
  optimizer  the optimizer's step (global step hooks);
  zero_grad  Optimizer.zero_grad and Module.zero_grad.
Categories by data pointer: parameters (the top module's and each optimizer's), gradients (at
each step), optimizer state (after the first step and whenever it grows), inputs (the tensors
handed to the top-level module). Activations and temporaries follow from the phases in the
recorder. The program's own record_function ranges become annotations.

A guest's rules (guard.py): one global module hook, armed at step boundaries and removed at the
first call (no hook is put on the program's modules: a module pickled with torch.save would
carry it, and a ScriptModule refuses it), every hook body guarded, nothing of the program's kept
alive (optimizers and modules are remembered by identity while they live).

Work at a step's end (the CPU profiler's chunk) waits until no record_function range of the
program is open on this thread: the optimizer's step is one (its post hooks run inside
"Optimizer.step#..."), and a profiler session restarted inside a range lets that range's end
write into the session that was stopped (heap corruption, seen as crashes at exit).
"""
import importlib
import sys
import threading
import time

from . import wire
from .gradient_tags import OptimizerTags
from .guard import Guard, Identities, around, arguments, during, first, then

_STATE_RETAG_STEPS = 100


def _tensors(value, depth=0):
    """The tensors in an argument: tuples, lists and dicts are searched a few levels deep."""
    import torch
    if isinstance(value, torch.Tensor):
        yield value
    elif depth < 3 and isinstance(value, (list, tuple)):
        for v in value[:64]:
            yield from _tensors(v, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for v in list(value.values())[:64]:
            yield from _tensors(v, depth + 1)


def _call_kwargs():
    """The keyword arguments of the module call whose global pre-hook is running: the global
    hooks are handed only the positional ones, and Module._call_impl keeps the rest in a local."""
    frame = sys._getframe(1)
    for _ in range(6):
        frame = frame.f_back
        if frame is None:
            return {}
        if frame.f_code.co_name in ("inner", "_call_impl"):
            kwargs = frame.f_locals.get("kwargs")
            return kwargs if isinstance(kwargs, dict) else {}
    return {}


class _Ranges(threading.local):
    depth = 0  # the program's record_function ranges open on this thread


class Phases:
    def __init__(self, torch, channel, on_quiet_point, guard=None):
        self.torch = torch
        self.ch = channel
        self.guard = guard or Guard(channel, torch)
        self.on_quiet_point = on_quiet_point  # called at step boundaries (nothing else allocates then)
        self.open = []
        self.hook = None          # the global forward pre-hook, while armed
        self.top_id = None        # id() of the last top-level module (compared only, never held)
        self.watching_inference = False  # armed through a no-grad top-level call's submodules
        self.inputs_armed = True
        self.top_modules = Identities()
        self.backward_depth = 0
        self.optimizers = Identities()  # optimizer -> OptimizerTags, while it lives
        self.ranges = _Ranges()
        self.waiting = []  # (thread, depth, work): work waiting for ranges to close
        self.quiet_pending = False
        self.paused = False  # sawtooth_shim.pause_recording(): the hooks stay, and do nothing
        self.on_new_top_module = None  # called with each new top-level module (torch_hooks: --rung, autocast)
        self.owner = None    # tensor -> the id of its module (modules.py), when modules are tracked

    # -- markers ---------------------------------------------------------------------------------
    def begin(self, name):
        if self.paused:
            return
        self.ch.record(wire.PHASE_BEGIN, addr=self.ch.name_id(name))
        self.open.append(name)

    def end(self, name):
        if name in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(name)]
            self.ch.record(wire.PHASE_END, addr=self.ch.name_id(name))

    def tag(self, tensors, category, owner=None):
        """Tells the recorder the blocks holding these tensors' data are of `category` (one send),
        and, when `owner` (tensor -> module id, modules.py) is given, whose module they are."""
        if self.paused:
            return
        now = time.monotonic_ns()
        pack, packed, none = wire.RECORD.pack, [], wire.NO_MODULE
        for t in tensors:
            try:
                ptr = t.data_ptr()
                device = t.get_device()  # -1 on the CPU
            except Exception:  # meta tensors, subclasses without storage
                continue
            if ptr:
                module = owner(t) if owner is not None else none
                packed.append(pack(now, ptr, 0, 0, wire.NO_STACK, device, category, wire.TAG, module, wire.NO_PASS))
        if packed:
            self.ch.live_packed(packed)

    # -- step boundaries -------------------------------------------------------------------------
    def when_ranges_close(self, work, depth=0):
        """Runs work now when at most `depth` of the program's ranges are open on this thread,
        else as soon as they have closed (on this thread)."""
        if self.ranges.depth <= depth:
            work()
        else:
            self.waiting.append((threading.get_ident(), depth, work))

    def ranges_closed(self):
        """A range closed on this thread: the work that waited for it."""
        me, depth = threading.get_ident(), self.ranges.depth
        due = [w for w in self.waiting if w[0] == me and depth <= w[1]]
        if due:
            self.waiting = [w for w in self.waiting if not (w[0] == me and depth <= w[1])]
            for _, _, work in due:
                self.guard.call("the work at a step's end", work)

    def quiet_point(self):
        """A step ended: the step's work, once the range around the hook (Optimizer.step's) has
        closed, so that it is neither inside the program's annotation nor inside a range."""
        if self.quiet_pending:
            return
        depth = self.ranges.depth
        if depth == 0:
            self.on_quiet_point()
            return
        self.quiet_pending = True
        self.when_ranges_close(self._quiet_now, depth - 1)

    def _quiet_now(self):
        self.quiet_pending = False
        self.on_quiet_point()

    # -- forward -----------------------------------------------------------------------------------
    def arm(self):
        if self.hook is None:
            self.hook = self.torch.nn.modules.module.register_module_forward_pre_hook(
                self.guard.wrap("watching the program's first module call", self._module_call))

    def disarm(self):
        hook, self.hook = self.hook, None
        if hook is not None:
            hook.remove()

    def is_our_hook(self, hook_id):
        return self.hook is not None and self.hook.id == hook_id

    def _module_call(self, module, args):
        grad = self.torch.is_grad_enabled()
        if self.watching_inference and id(module) != self.top_id:
            if grad:  # gradients back on: a training step's first call
                self.watching_inference = False
            else:
                return  # a submodule of the top-level call being watched
        self.top_id = id(module)
        # In training the forward phase runs on (through the loss) until backward; without
        # gradients (inference, validation) each top-level call is a forward of its own, so the
        # hook stays armed and reacts to that module only.
        self.watching_inference = not grad
        if grad:
            self.disarm()
        if "forward" in self.open:
            self.end("forward")
        self.begin("forward")
        if module not in self.top_modules:
            self.top_modules.add(module, True)
            self.tag(module.parameters(), wire.PARAMETER)
            if self.on_new_top_module is not None:
                self.guard.call("watching the model", lambda: self.on_new_top_module(module))
        if self.inputs_armed or not grad:
            self.inputs_armed = False
            self.tag(_tensors(args), wire.INPUT)
            self.tag(_tensors(_call_kwargs()), wire.INPUT)

    # -- backward ----------------------------------------------------------------------------------
    def backward_begin(self):
        self.backward_depth += 1
        if self.backward_depth == 1:
            if "forward" in self.open:
                self.end("forward")
            self.begin("backward")

    def backward_end(self):
        self.backward_depth = max(0, self.backward_depth - 1)
        if self.backward_depth == 0:
            self.end("backward")
            self.step_boundary()

    def step_boundary(self):
        self.inputs_armed = True
        self.watching_inference = False
        self.arm()

    def recompute_begin(self):
        """A checkpointed function runs: inside backward it is recomputing what forward dropped."""
        if self.backward_depth > 0:
            self.begin("recompute")
            return True
        return False

    def recompute_end(self):
        self.end("recompute")

    # -- optimizer ---------------------------------------------------------------------------------
    def _optimizer_tags(self, optimizer):
        seen = self.optimizers.get(optimizer)
        if seen is None:
            seen = self.optimizers.add(optimizer, OptimizerTags())
        return seen

    def after_this_range(self, work):
        """Work of a hook that runs inside a range of the program's (the optimizer's step hooks run
        inside "Optimizer.step#..."): once that range has closed, so that the shim's own work is
        not counted in the program's annotation; at once outside any range."""
        depth = self.ranges.depth
        if depth == 0:
            work()
        else:
            self.when_ranges_close(work, depth - 1)

    def step_begin(self, optimizer):
        if self.paused:
            return
        if "forward" in self.open:
            self.end("forward")
        self.begin("optimizer")
        # The step changes neither the parameters' nor the gradients' blocks: they are tagged
        # after the step's range, at the same addresses.
        self.after_this_range(lambda: self._tag_step_tensors(optimizer))

    def _tag_step_tensors(self, optimizer):
        seen = self._optimizer_tags(optimizer)
        params = seen.parameters(optimizer, self.owner)
        if seen.steps == 0:
            self.tag(params, wire.PARAMETER, self.owner)
        gradients = seen.gradient_records(params, time.monotonic_ns())
        if gradients:
            self.ch.live_packed((gradients,))

    def step_end(self, optimizer):
        if self.paused:
            self.quiet_point()
            return
        self.end("optimizer")
        self.after_this_range(lambda: self._after_step(optimizer))

    def _after_step(self, optimizer):
        seen = self._optimizer_tags(optimizer)
        seen.steps += 1
        state = getattr(optimizer, "state", {})
        if len(state) != seen.state_tensors or seen.steps % _STATE_RETAG_STEPS == 1:
            seen.state_tensors = len(state)
            tensor, owner = self.torch.Tensor, self.owner
            tensors, owners = [], {}
            for param, values in list(state.items()):
                if isinstance(values, dict):
                    module = owner(param) if owner is not None else wire.NO_MODULE
                    for v in values.values():
                        if isinstance(v, tensor):
                            tensors.append(v)
                            owners[id(v)] = module  # a state tensor is its parameter's module's
            self.tag(tensors, wire.OPTIMIZER_STATE,
                     (lambda t: owners.get(id(t), wire.NO_MODULE)) if owner is not None else None)
        self.step_boundary()
        if not self.quiet_pending:  # already past the step's range: the step's end work now
            self.on_quiet_point()

    def zero_grad_begin(self):
        if "forward" in self.open:
            self.end("forward")
        self.begin("zero_grad")

    def zero_grad_end(self):
        self.end("zero_grad")
        self.step_boundary()

    # -- installation --------------------------------------------------------------------------------
    def install(self):
        """Each hook on its own: one that this torch does not offer leaves the others working."""
        guard = self.guard
        for what, install in (("the backward phase", self._install_backward),
                              ("the zero_grad phase", self._install_zero_grad),
                              ("the optimizer phase", self._install_optimizer),
                              ("the program's record_function ranges", self._install_record_function),
                              ("the recompute phase of torch.utils.checkpoint", self._install_checkpoint),
                              ("hiding the shim's module hook from torch.compile", self._hide_global_hook),
                              ("the forward phase", self.arm)):
            try:
                install()
            except Exception as e:
                guard.report(f"installing {what}", e)

    def _install_backward(self):
        autograd = self.torch.autograd
        for name in ("backward", "grad"):
            setattr(autograd, name, around(getattr(autograd, name), self.guard, "the backward phase", self.backward_begin,
                                           self.backward_end))

    def _install_zero_grad(self):
        for cls in (self.torch.optim.Optimizer, self.torch.nn.Module):
            cls.zero_grad = around(cls.zero_grad, self.guard, "the zero_grad phase", self.zero_grad_begin,
                                   self.zero_grad_end)

    def _install_optimizer(self):
        optimizer_module = importlib.import_module("torch.optim.optimizer")  # torch.optim hides the name
        if not hasattr(optimizer_module, "register_optimizer_step_pre_hook"):
            self.ch.notice("warning", f"torch {self.torch.__version__} has no global optimizer hooks: no optimizer "
                                      "phase, gradients or optimizer state")
            return
        begin = self.guard.wrap("the optimizer phase", self.step_begin)
        end = self.guard.wrap("the optimizer phase", self.step_end)

        def pre_hook(opt, args, kwargs):
            begin(opt)  # returns None: the step's arguments stay the program's

        def post_hook(opt, args, kwargs):
            end(opt)
        optimizer_module.register_optimizer_step_pre_hook(pre_hook)
        optimizer_module.register_optimizer_step_post_hook(post_hook)

    def _install_record_function(self):
        rf = self.torch.autograd.profiler.record_function
        ch, phases, ranges = self.ch, self, self.ranges

        def begun(this):
            ranges.depth += 1
            if not phases.paused:
                ch.record(wire.ANNOTATION_BEGIN, addr=ch.name_id(str(this.name)), range_id=id(this))

        def ending(this, *exc):
            if not phases.paused:
                ch.record(wire.ANNOTATION_END, range_id=id(this))

        def ended():
            ranges.depth = max(0, ranges.depth - 1)
            if phases.waiting:
                phases.ranges_closed()

        what = "the program's record_function ranges"
        rf.__enter__ = then(rf.__enter__, self.guard, what, begun)
        rf.__exit__ = first(rf.__exit__, self.guard, what, ending, ended)

    def _install_checkpoint(self):
        """torch.utils.checkpoint runs the checkpointed function once in forward and again in
        backward (both forms): the second run is the recompute phase."""
        try:
            checkpoint = importlib.import_module("torch.utils.checkpoint")
        except ImportError:
            return
        phases = self

        def recomputed(function):
            return during(function, phases.guard, "the recompute phase", phases.recompute_begin, phases.recompute_end)
        checkpoint.checkpoint = arguments(checkpoint.checkpoint, self.guard, "the recompute phase", recomputed)

    def _hide_global_hook(self):
        """torch.compile(module) warns when any global module hook exists; ours must not count."""
        module = self.torch.nn.modules.module
        original = getattr(module, "_has_any_global_hook", None)
        if original is None:
            return
        phases = self

        def _has_any_global_hook():
            try:
                def theirs(hooks):
                    return any(not (phases.is_our_hook(i)) for i in hooks or ())
                return bool(module._global_backward_pre_hooks or module._global_backward_hooks or
                            theirs(module._global_forward_pre_hooks) or theirs(module._global_forward_hooks) or
                            theirs(getattr(module, "_global_forward_hooks_always_called", None)) or
                            theirs(getattr(module, "_global_forward_hooks_with_kwargs", None)))
            except Exception:
                pass
            return original()
        _has_any_global_hook.__wrapped__ = original
        module._has_any_global_hook = _has_any_global_hook
