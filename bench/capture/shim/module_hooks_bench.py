"""What the shim's module tracking costs per module call on the program's thread, before and after
the hooks were cut down to one native call each (issue 23: +5.9 % of GPT-2's step on the H200);
no GPU needed. A Sequential of MODULES tiny modules (nn.Identity: the module call is all there
is) runs forward PASSES times per block; cases alternate block by block, ROUNDS times, in one
process:
  plain   no hooks (the program unrecorded)
  empty   two global hooks that do nothing: the floor of any tracking by module hooks (PyTorch's
          Module._call_impl leaves its fast path for every module call once a global hook exists)
  before  the hook bodies as they were (module_hooks_before.py: a frozen copy), through the guard
          wrapper, a Python stack per thread, a graph-task probe and a ctypes call per enter and exit
  wrapped the floor of a Module.__call__ wrapper: a bare closure making two ctypes marks (no guard,
          no discovery), measured only
  ctypes  the shim's wrapper as it was before its marks became builtins: the guarded wrapper, the
          module's id from a Python dict checked through its weak reference, a ctypes call per
          enter and exit (a frozen copy of modules.Modules.call_enters/exits of that commit)
  after   the shim's modules.py as it is now: the guarded wrapper, and for a known module the
          tracker library's two builtins (enter finds the id in C)
  sending after, with the tracker sending (to a socket a thread drains): each mark is also stamped
          and queued, and the tracker's thread sends it, as in a recording
Every other tracked case calls the real tracker library's marks with the tracker paused: each mark
is recorded in the thread's open calls, nothing is queued. Printed: nanoseconds
per module call above plain (the median of the rounds, and its min .. max), as Markdown.
Usage: module_hooks_bench.py TRACKER_LIBRARY [--modules M] [--passes P] [--rounds R] [--json FILE]"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "capture", "shim"))
sys.path.insert(0, here)
from sawtooth_shim import cuda_native, guard, modules  # noqa: E402
import module_hooks_before  # noqa: E402
from drained_channel import drained_socket  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("library")
p.add_argument("--modules", type=int, default=200)
p.add_argument("--passes", type=int, default=200)
p.add_argument("--rounds", type=int, default=15)
p.add_argument("--json")
args = p.parse_args()


class NullChannel:
    """The module tree and tags go nowhere: only the per-call marks are measured."""
    def notice(self, *a, **k):
        pass

    def send_frame(self, *a, **k):
        pass

    def live_packed(self, *a, **k):
        pass

    def record(self, *a, **k):
        pass


marks = cuda_native.module_marks(args.library)
if marks is None:
    sys.exit(f"{args.library}: no module marks")
# The marks as they were bound before the hooks' cut: with argtypes (a library object of their own).
_before_lib = ctypes.PyDLL(args.library)
before_marks = (_before_lib.sawtooth_tracker_module_enter, _before_lib.sawtooth_tracker_module_exit)
before_marks[0].argtypes, before_marks[0].restype = [ctypes.c_uint, ctypes.c_int], None
before_marks[1].argtypes, before_marks[1].restype = [ctypes.c_uint], None
# As the wrapper called them until they became builtins: no argtypes.
_ctypes_lib = ctypes.PyDLL(args.library)
ctypes_marks = (_ctypes_lib.sawtooth_tracker_module_enter, _ctypes_lib.sawtooth_tracker_module_exit)
ctypes_marks[0].restype = ctypes_marks[1].restype = None
net = torch.nn.Sequential(*[torch.nn.Identity() for _ in range(args.modules)])
x = torch.zeros(4)
calls = args.passes * (args.modules + 1)


def tracker(cls, *native):
    ch = NullChannel()
    t = cls(torch, ch, guard.Guard(ch, torch))
    t.use_native(*native)
    return t


class CtypesMarks(modules.Modules):
    """modules.Modules with its marks as they were before they became builtins."""
    def use_native(self, enter, exit_):
        self.ctypes_marks = (enter, exit_)

    def call_enters(self, module):
        entry = self.ids._entries.get(id(module))
        if entry is not None and (entry[0] is None or entry[0]() is module):
            ident = entry[1]
        else:
            ident = self.discover(module)
            if ident is None:
                return None
        native = self.ctypes_marks
        native[0](ident, 0)
        return ident, native[1]


class EmptyHooks:
    def __init__(self):
        self.hooks = []

    def install(self):
        m = torch.nn.modules.module
        self.hooks = [m.register_module_forward_pre_hook(lambda module, args: None),
                      m.register_module_forward_hook(lambda module, args, output: None, always_call=True)]

    def set_paused(self, paused):
        for h in self.hooks:
            h.remove()
        self.hooks = []
        if not paused:
            self.install()


class WrappedCall:
    def __init__(self, native):
        self.native = native
        self.original = torch.nn.Module.__call__
        self.ids = {}

    def install(self):
        original, ids = self.original, self.ids
        enter, exit_ = self.native
        for i, sub in enumerate(net.modules()):
            ids[id(sub)] = i

        def __call__(module, *a, **k):
            ident = ids.get(id(module))
            if ident is None:
                return original(module, *a, **k)
            enter(ident, 0)
            try:
                return original(module, *a, **k)
            finally:
                exit_(ident)
        torch.nn.Module.__call__ = __call__

    def set_paused(self, paused):
        torch.nn.Module.__call__ = self.original
        if not paused:
            self.install()


class Sending:
    """A tracker like after's, with the library's tracker sending while its block runs."""
    def __init__(self, library):
        self.lib = ctypes.CDLL(library)
        self.lib.sawtooth_tracker_connect.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        if self.lib.sawtooth_tracker_connect(drained_socket().encode(), 0, 50) != 0:
            sys.exit(f"{library}: the tracker did not connect")
        self.lib.sawtooth_tracker_pause(1)
        self.modules = tracker(modules.Modules, marks)

    def install(self):
        self.modules.install()

    def set_paused(self, paused):
        self.lib.sawtooth_tracker_pause(1 if paused else 0)
        self.modules.set_paused(paused)


cases = {"plain": None, "empty": EmptyHooks(), "wrapped": WrappedCall(ctypes_marks),
         "before": tracker(module_hooks_before.Modules, *before_marks), "ctypes": tracker(CtypesMarks, *ctypes_marks),
         "after": tracker(modules.Modules, marks), "sending": Sending(args.library)}
for t in cases.values():  # each names the net once, then comes off until its block
    if t is not None:
        t.install()
        net(x)
        t.set_paused(True)

times = {name: [] for name in cases}
with torch.no_grad():
    for _ in range(args.rounds):
        for name, t in cases.items():
            if t is not None:
                t.set_paused(False)
            begin = time.perf_counter_ns()
            for _ in range(args.passes):
                net(x)
            times[name].append((time.perf_counter_ns() - begin) / calls)
            if t is not None:
                t.set_paused(True)

plain = times["plain"]
print(f"{args.modules} modules, {args.passes} passes per block, {args.rounds} rounds alternating; torch {torch.__version__}\n")
print("| case | ns per module call | above plain: median (min … max over rounds) |")
print("|---|---:|---:|")
summary = {}
for name, ts in times.items():
    above = [t - q for t, q in zip(ts, plain)]
    summary[name] = {"ns_per_call": statistics.median(ts), "above_plain_ns": statistics.median(above),
                     "above_plain_min_ns": min(above), "above_plain_max_ns": max(above)}
    print(f"| {name} | {statistics.median(ts):.0f} | "
          + ("—" if name == "plain" else f"{statistics.median(above):.0f} ({min(above):.0f} … {max(above):.0f})") + " |")
if args.json:
    with open(args.json, "w") as f:
        json.dump({"modules": args.modules, "passes": args.passes, "rounds": args.rounds, "torch": torch.__version__,
                   "cases": summary}, f, indent=1)
