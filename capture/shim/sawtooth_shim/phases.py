"""Phases and categories of a training loop the shim knows nothing about.

Phases, with the names the built-in workloads use, so that the same attribution rules apply:
  forward    from the first module call after a step boundary until backward starts (or the next
             top-level call when there is no backward, as in inference);
  backward   torch.autograd.backward / grad;
  optimizer  the optimizer's step (global step hooks);
  zero_grad  Optimizer.zero_grad and Module.zero_grad.
Categories by data pointer: parameters (the top module's and each optimizer's), gradients (at
each step), optimizer state (after the first step and whenever it grows), inputs (the tensors
handed to the top-level module). Activations and temporaries follow from the phases in the
recorder. The program's own record_function ranges become annotations.
"""
import functools
import importlib
import time

from . import wire
from .gradient_tags import OptimizerTags

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


class Phases:
    def __init__(self, torch, channel, on_quiet_point):
        self.torch = torch
        self.ch = channel
        self.on_quiet_point = on_quiet_point  # called at step boundaries (nothing else allocates then)
        self.open = []
        self.global_hook = None
        self.inputs_armed = True
        self.top_modules = set()
        self.backward_depth = 0
        self.optimizers = {}  # id(optimizer) -> OptimizerTags
        self.ranges = 0
        self.paused = False  # sawtooth_shim.pause_recording(): the hooks stay, and do nothing

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

    def tag(self, tensors, category):
        """Tells the recorder the blocks holding these tensors' data are of `category` (one send)."""
        if self.paused:
            return
        now = time.monotonic_ns()
        pack, packed = wire.RECORD.pack, []
        for t in tensors:
            try:
                ptr = t.data_ptr()
                device = t.get_device()  # -1 on the CPU
            except Exception:  # meta tensors, subclasses without storage
                continue
            if ptr:
                packed.append(pack(now, ptr, 0, 0, wire.NO_STACK, device, category, wire.TAG))
        if packed:
            self.ch.live_packed(packed)

    # -- forward -----------------------------------------------------------------------------------
    def arm(self):
        if self.global_hook is None:
            self.global_hook = self.torch.nn.modules.module.register_module_forward_pre_hook(self._first_call)

    def _first_call(self, module, args):
        self.global_hook.remove()
        self.global_hook = None
        if "forward" in self.open:
            self.end("forward")
        self.begin("forward")
        if id(module) not in self.top_modules:
            self.top_modules.add(id(module))
            self.tag(module.parameters(), wire.PARAMETER)
            self._watch_top_module(module)
            if self.inputs_armed:  # this first call's keyword arguments are not seen
                self.inputs_armed = False
                self.tag(_tensors(args), wire.INPUT)

    def _watch_top_module(self, module):
        def before(mod, args, kwargs=None):
            if self.inputs_armed:
                self.inputs_armed = False
                self.tag(_tensors(args), wire.INPUT)
                self.tag(_tensors(kwargs or {}), wire.INPUT)

        def after(mod, args, output):
            # In training the forward phase runs on (through the loss) until backward; without
            # gradients (inference, validation) each top-level call is a forward of its own.
            if not self.torch.is_grad_enabled():
                self.inputs_armed = True
                self.arm()

        try:
            module.register_forward_pre_hook(before, with_kwargs=True)
        except TypeError:  # torch before 2.0
            module.register_forward_pre_hook(lambda mod, args: before(mod, args))
        module.register_forward_hook(after)

    # -- backward ----------------------------------------------------------------------------------
    def backward_begin(self):
        self.backward_depth += 1
        if self.backward_depth == 1:
            if "forward" in self.open:
                self.end("forward")
            self.begin("backward")

    def backward_end(self):
        self.backward_depth -= 1
        if self.backward_depth == 0:
            self.end("backward")
            self.inputs_armed = True
            self.arm()

    # -- optimizer ---------------------------------------------------------------------------------
    def _optimizer_tags(self, optimizer):
        seen = self.optimizers.get(id(optimizer))
        if seen is None:
            seen = self.optimizers[id(optimizer)] = OptimizerTags()
        return seen

    def step_begin(self, optimizer):
        if self.paused:
            return
        if "forward" in self.open:
            self.end("forward")
        seen = self._optimizer_tags(optimizer)
        params = seen.parameters(optimizer)
        if seen.steps == 0:
            self.tag(params, wire.PARAMETER)
        gradients = seen.gradient_records(time.monotonic_ns())
        if gradients:
            self.ch.live_packed((gradients,))
        self.begin("optimizer")

    def step_end(self, optimizer):
        if self.paused:
            self.on_quiet_point()
            return
        self.end("optimizer")
        seen = self._optimizer_tags(optimizer)
        seen.steps += 1
        state = getattr(optimizer, "state", {})
        if len(state) != seen.state_tensors or seen.steps % _STATE_RETAG_STEPS == 1:
            seen.state_tensors = len(state)
            tensor = self.torch.Tensor
            self.tag([v for values in list(state.values()) if isinstance(values, dict)
                      for v in values.values() if isinstance(v, tensor)], wire.OPTIMIZER_STATE)
        self.inputs_armed = True
        self.arm()
        self.on_quiet_point()

    def zero_grad_begin(self):
        if "forward" in self.open:
            self.end("forward")
        self.begin("zero_grad")

    def zero_grad_end(self):
        self.end("zero_grad")
        self.inputs_armed = True
        self.arm()

    # -- installation --------------------------------------------------------------------------------
    def install(self):
        torch = self.torch
        phases = self

        def around(begin, end):
            def wrap(fn):
                @functools.wraps(fn)
                def wrapper(*args, **kwargs):
                    begin()
                    try:
                        return fn(*args, **kwargs)
                    finally:
                        end()
                wrapper.__sawtooth_wrapped__ = fn
                return wrapper
            return wrap

        autograd = torch.autograd
        autograd.backward = around(self.backward_begin, self.backward_end)(autograd.backward)
        autograd.grad = around(self.backward_begin, self.backward_end)(autograd.grad)
        for cls in (torch.optim.Optimizer, torch.nn.Module):
            cls.zero_grad = around(self.zero_grad_begin, self.zero_grad_end)(cls.zero_grad)
        optimizer_module = importlib.import_module("torch.optim.optimizer")  # torch.optim hides the name
        if hasattr(optimizer_module, "register_optimizer_step_pre_hook"):
            optimizer_module.register_optimizer_step_pre_hook(lambda opt, args, kwargs: self.step_begin(opt))
            optimizer_module.register_optimizer_step_post_hook(lambda opt, args, kwargs: self.step_end(opt))
        else:
            self.ch.notice("warning", f"torch {torch.__version__} has no global optimizer hooks: no optimizer phase, "
                                      "gradients or optimizer state")
        self._install_record_function()
        self.arm()

    def _install_record_function(self):
        rf = self.torch.autograd.profiler.record_function
        enter, exit_ = rf.__enter__, rf.__exit__
        ch, phases = self.ch, self

        def __enter__(this):
            result = enter(this)
            if not phases.paused:
                ch.record(wire.ANNOTATION_BEGIN, addr=ch.name_id(str(this.name)), range_id=id(this))
            return result

        def __exit__(this, *exc):
            if not phases.paused:
                ch.record(wire.ANNOTATION_END, range_id=id(this))
            return exit_(this, *exc)

        rf.__enter__, rf.__exit__ = __enter__, __exit__

