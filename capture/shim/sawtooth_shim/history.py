"""PyTorch's allocator history (torch.cuda.memory._record_memory_history), as the shim turns it on.

The program may call it too: its call is honoured, and history stays on afterwards (the tracker
only fires while it is), with the program told once.
"""
import inspect

from .guard import then


class History:
    def __init__(self, torch, channel, stacks, max_entries):
        self.torch = torch
        self.ch = channel
        self.stacks = stacks
        self.max_entries = max_entries
        self.record = torch.cuda.memory._record_memory_history  # the program's calls go through our patch
        try:
            self.can_clear = "clear_history" in inspect.signature(self.record).parameters
        except (TypeError, ValueError):
            self.can_clear = False
        self.program_uses_it = False
        self.on = False

    def enable(self, clear=False):
        kwargs = dict(enabled="all", context="alloc" if self.stacks else None, stacks="python",
                      max_entries=self.max_entries)
        if clear and self.can_clear:
            kwargs["clear_history"] = True
        self.record(**kwargs)
        self.on = True

    def disable(self):
        self.on = False  # first: the program's patched function must not turn it back on
        self.record(enabled=None)

    def install_patch(self, guard):
        memory = self.torch.cuda.memory
        original = self.record
        history = self

        def after_program_call(*args, **kwargs):
            if not history.program_uses_it:
                history.program_uses_it = True
                history.ch.notice("info", "the program records PyTorch's allocator history itself; Sawtooth keeps it on "
                                          "(the program's own snapshots then hold what both asked for)")
            if history.on and not history.torch._C._cuda_isHistoryEnabled():
                history.enable()

        patched = then(original, guard, "keeping PyTorch's allocator history on", after_program_call)
        memory._record_memory_history = patched
        if getattr(self.torch.cuda, "_record_memory_history", None) is original:
            self.torch.cuda._record_memory_history = patched
