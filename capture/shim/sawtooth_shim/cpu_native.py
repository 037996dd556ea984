"""CPU allocations through the tracker library (--shim native, the default where it loads): a
memory reporter of the tracker's sits in the slot of the program's thread where PyTorch's profiler
would (capture/inject/cpu_reporter.h), and c10's CPU allocator hands it every allocation and free;
the tracker stamps each with its module and, with --stacks python, its Python stack, and sends them
from its own thread. No profiler session runs and nothing is done at a step's end: the profiler's
path (cpu_allocations.py, --shim portable) stops and reads its session every 200 ms, which cost the
program more than the profiler alone (issue 27).

The reporter states itself disabled, so torch.autograd.profiler's checks of whether a profiler runs
read "no". The program's own profiler needs the slot: the reporter leaves when it starts and comes
back when it stops (torch_hooks.py); the allocations in between are its session's, not ours. Like
the profiler it is one per thread, put on the thread that imported torch (autograd's threads inherit
it there); a thread the program starts itself is not recorded.
"""
import threading


class NativeCpu:
    def __init__(self, lib, channel):
        self.lib = lib
        self.ch = channel
        self.running = False
        self.paused = False
        self.thread = threading.get_ident()

    def start(self):
        if self.running or threading.get_ident() != self.thread:
            return
        if self.lib.sawtooth_tracker_cpu_attach() != 0:
            why = self.lib.sawtooth_tracker_error().decode(errors="replace")
            self.ch.notice("warning", f"CPU allocations are not recorded for now: {why}")
            return
        self.running = True

    def cut(self, final=False, force=False):
        """Nothing to cut: the tracker sends as it goes. final takes the reporter off."""
        if final and self.running and threading.get_ident() == self.thread:
            self.lib.sawtooth_tracker_cpu_detach()
            self.running = False
        return False

    def pause(self):
        """Until resume(): the program's own profiler takes the slot."""
        self.paused = True
        self.cut(final=True)

    def resume(self):
        if not self.paused:
            return
        self.paused = False
        self.start()

    def after_fork(self):
        """In a forked child (a DataLoader worker): its allocations are not this process's."""
        if self.running:
            self.lib.sawtooth_tracker_cpu_detach()
        self.running = False
