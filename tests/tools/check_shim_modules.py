#!/usr/bin/env python3
"""The shim's module tracking (capture/shim/sawtooth_shim/modules.py) on real PyTorch (CPU): the
names and parameter bytes it declares, the calls it marks on each thread and their pass, for the
programs issue 23 names — nested modules, a module called several times, a loss outside any
root, torch.utils.checkpoint in both forms, torch.compile'd modules, hooks of the program's own,
replicas on threads, a model dropped and built again, tied weights, a forward that raises —,
backward's marks on the portable path (each module's backward beginning, in the order autograd
runs them, and its end), and that the program computes exactly what it computes unrecorded.

With the tracker library named, also its module builtins: the shim's marks through them.

usage: check_shim_modules.py SHIM_DIR [TRACKER_LIBRARY]   (run by a Python whose torch is installed; exit 77 without)
"""
import gc
import sys
import threading
import weakref

sys.path.insert(0, sys.argv[1])
try:
    import torch
except ImportError:
    print("no torch in this Python: skipped")
    sys.exit(77)
from sawtooth_shim import wire  # noqa: E402
from sawtooth_shim.guard import Guard  # noqa: E402
from sawtooth_shim.modules import Modules  # noqa: E402

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAILED:", what)


class FakeChannel:
    def __init__(self):
        self.modules = {}   # id -> (parent, bytes, name, class)
        self.calls = []     # (kind, module, pass, thread)
        self.tags = []      # (addr, category, module)
        self.notices = []

    def send_frame(self, frame_type, payload, stream=0):
        assert frame_type == wire.MODULES
        at = 0
        while at < len(payload):
            ident, parent, size, nb, cb = wire.MODULE.unpack_from(payload, at)
            at += wire.MODULE.size
            name = payload[at:at + nb].decode()
            at += nb
            cls = payload[at:at + cb].decode()
            at += cb
            assert ident not in self.modules, f"module {ident} named twice"
            assert parent == wire.NO_MODULE or parent in self.modules, f"{name}: parent {parent} not named before"
            self.modules[ident] = (parent, size, name, cls)

    def record(self, kind, addr=0, size=0, device=0, action=0, range_id=0, module=wire.NO_MODULE, pass_=wire.NO_PASS):
        self.calls.append((kind, module, pass_, range_id))

    def live_packed(self, packed):
        for p in packed:
            for r in wire.RECORD.iter_unpack(p):
                self.tags.append((r[1], r[6], r[8]))

    def notice(self, level, message):
        self.notices.append(message)

    def full_name(self, ident):
        parent, _, name, _ = self.modules[ident]
        root = ident
        while self.modules[root][0] != wire.NO_MODULE:
            root = self.modules[root][0]
        return name if root == ident else self.modules[root][2] + "." + name

    def by_name(self):
        return {self.full_name(i): i for i in self.modules}


def backward_marks(calls):
    """The marks of backward (the portable path): each module's backward beginning, and its end."""
    return [c for c in calls if c[2] == wire.BACKWARD]


def calls_of(calls):
    """Forward and recompute calls: all but backward's marks."""
    return [c for c in calls if c[2] != wire.BACKWARD]


def balanced(calls):
    """Per thread, every forward or recompute enter has its exit, properly nested."""
    stacks = {}
    for kind, module, pass_, thread in calls_of(calls):
        stack = stacks.setdefault(thread, [])
        if kind == wire.MODULE_ENTER:
            stack.append(module)
        elif not stack or stack.pop() != module:
            return False
    return all(not s for s in stacks.values())


def tracker():
    ch = FakeChannel()
    guard = Guard(ch, torch)
    m = Modules(torch, ch, guard)
    m.install()
    return ch, m


def remove(m):
    m.uninstall()


class Body(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8))

    def forward(self, x):
        return self.layers(x)


class Net(torch.nn.Module):
    def __init__(self, checkpoint=None):
        super().__init__()
        self.embed = torch.nn.Linear(4, 8)
        self.body = Body()
        self.shared = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 3)
        self.checkpoint = checkpoint

    def forward(self, x):
        x = self.embed(x)
        if self.checkpoint is None:
            x = self.body(x)
        else:
            x = torch.utils.checkpoint.checkpoint(self.body, x, use_reentrant=self.checkpoint)
        x = self.shared(self.shared(x))  # one module called twice
        return self.head(x)


def step(net, loss_fn, seed=0):
    torch.manual_seed(seed)
    x = torch.randn(5, 4, requires_grad=True)
    y = torch.randint(0, 3, (5,))
    loss = loss_fn(net(x), y)
    loss.backward()
    return loss.detach().clone(), [p.grad.clone() for p in net.parameters()]


def unrecorded(make, loss_fn=None, seed=0):
    torch.manual_seed(123)
    net = make()
    return step(net, loss_fn or torch.nn.CrossEntropyLoss(), seed)


def same(a, b):
    return torch.equal(a[0], b[0]) and all(torch.equal(x, y) for x, y in zip(a[1], b[1]))


# 1. Names, parameter bytes, nesting, a module called twice, a loss outside any root.
reference = unrecorded(Net)
ch, m = tracker()
torch.manual_seed(123)
net = Net()
got = step(net, torch.nn.CrossEntropyLoss())
check(same(got, reference), "the program computes the same recorded")
names = ch.by_name()
check(set(names) == {"Net", "Net.embed", "Net.body", "Net.body.layers", "Net.body.layers.0", "Net.body.layers.1",
                     "Net.body.layers.2", "Net.shared", "Net.head", "CrossEntropyLoss"}, f"names {sorted(names)}")
check(ch.modules[names["Net.body.layers.0"]][:2] == (names["Net.body.layers"], (8 * 16 + 16) * 4),
      "a module's parent and its own parameter bytes")
check(ch.modules[names["Net"]][1] == 0 and ch.modules[names["Net"]][3] == "Net", "a root: its class, no own parameters")
check(ch.modules[names["Net.body.layers.0"]][2] == "body.layers.0", "names as named_modules() gives them")
check(balanced(ch.calls), "calls nest on their thread")
enters = [c for c in calls_of(ch.calls) if c[0] == wire.MODULE_ENTER]
check(sum(1 for c in enters if c[1] == names["Net.shared"]) == 2, "a module called twice is marked twice")
check(all(c[2] == wire.FORWARD for c in enters), "forward calls are forward")
check(enters[0][1] == names["Net"] and enters[-1][1] == names["CrossEntropyLoss"], "the loss after the model")
param_tags = {addr: module for addr, cat, module in ch.tags if cat == wire.PARAMETER}
check(param_tags.get(net.head.weight.data_ptr()) == names["Net.head"], "a parameter's tag names its module")
check(m.owner(net.body.layers[2].bias) == names["Net.body.layers.2"], "owner() of a parameter")
check(not ch.notices, f"no notices: {ch.notices}")
# Backward, marked by the modules' outputs: each module's backward begins (innermost first where an
# output is its parent's too: the body's is layers.2's), a module called twice is marked once
# (its two backwards follow each other), and backward's end closes the last.
marks = backward_marks(ch.calls)
order = ["CrossEntropyLoss", "Net.head", "Net.shared", "Net.body.layers.2", "Net.body.layers.1", "Net.body.layers.0",
         "Net.embed"]
check([c[1] for c in marks if c[0] == wire.MODULE_ENTER] == [names[n] for n in order],
      f"backward's marks: {[ch.full_name(c[1]) for c in marks if c[0] == wire.MODULE_ENTER]}")
check(marks and marks[-1][0] == wire.MODULE_EXIT and marks[-1][1] == names["Net.embed"], "backward's end closes the last")
check(len({c[3] for c in marks}) == 1 and marks[0][3] == threading.get_ident(), "marked on the thread that ran backward")
remove(m)

# 2. torch.utils.checkpoint, both forms: the body runs again in backward, as a recompute.
for reentrant in (True, False):
    reference = unrecorded(lambda: Net(checkpoint=reentrant))
    ch, m = tracker()
    torch.manual_seed(123)
    got = step(Net(checkpoint=reentrant), torch.nn.CrossEntropyLoss())
    check(same(got, reference), f"checkpoint(use_reentrant={reentrant}) computes the same recorded")
    names = ch.by_name()
    body = [c[2] for c in calls_of(ch.calls) if c[0] == wire.MODULE_ENTER and c[1] == names["Net.body"]]
    check(body == [wire.FORWARD, wire.RECOMPUTE], f"checkpoint(use_reentrant={reentrant}): body {body}")
    layer = [c[2] for c in calls_of(ch.calls) if c[0] == wire.MODULE_ENTER and c[1] == names["Net.body.layers.0"]]
    marked = {ch.full_name(c[1]) for c in backward_marks(ch.calls) if c[0] == wire.MODULE_ENTER}
    check({"Net.head", "Net.body.layers.0", "Net.embed"} <= marked,
          f"checkpoint(use_reentrant={reentrant}): backward's marks {sorted(marked)}")
    check(layer == [wire.FORWARD, wire.RECOMPUTE], f"checkpoint(use_reentrant={reentrant}): its layers {layer}")
    check(balanced(ch.calls), f"checkpoint(use_reentrant={reentrant}): calls nest")
    remove(m)

# 3. torch.compile (fullgraph): the compiled region is its original module, the result unchanged.
reference = unrecorded(Net)
ch, m = tracker()
torch.manual_seed(123)
net = Net()
compiled = torch.compile(net, fullgraph=True, backend="eager")
got = step(compiled, torch.nn.CrossEntropyLoss())
check(same(got, reference), "a compiled module computes the same recorded")
names = ch.by_name()
check("Net" in names and not any("_orig_mod" in n or "OptimizedModule" in n for n in names), f"compiled: {sorted(names)}")
top = [c[1] for c in calls_of(ch.calls) if c[0] == wire.MODULE_ENTER]
check(top and top[0] == names["Net"], "a compiled module's calls are its original's")
check(balanced(ch.calls), "compiled: calls nest")
check(not ch.notices, f"compiled: no notices {ch.notices}")
remove(m)

# 4. The program's own hooks run as they would; their changes stand.
reference_net = Net()
seen = []
ch, m = tracker()
torch.manual_seed(123)
net = Net()
net.head.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
net.body.register_forward_hook(lambda mod, args, out: seen.append(out.shape))
torch.manual_seed(123)
plain = Net()
plain.head.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
check(same(step(net, torch.nn.CrossEntropyLoss()), step(plain, torch.nn.CrossEntropyLoss())),
      "the program's own hooks: same result")
check(len(seen) == 1, "the program's own forward hook ran")
remove(m)

# 5. Replicas on threads (DataParallel-style): each thread's calls nest on that thread.
ch, m = tracker()
torch.manual_seed(123)
net = Net()
results = {}
together = threading.Barrier(4)


def replica(i):
    together.wait()  # all alive at once: thread ids are not reused
    with torch.no_grad():
        results[i] = net(torch.full((3, 4), float(i)))
    together.wait()


threads = [threading.Thread(target=replica, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
check(len({c[3] for c in ch.calls}) == 4 and balanced(ch.calls), "replicas: calls nest on each thread")
remove(m)

# 6. A model dropped and built again: freed as unrecorded, named again as the same root.
ch, m = tracker()
net = Net()
step(net, torch.nn.CrossEntropyLoss())
gone = weakref.ref(net)
del net
gc.collect()
check(gone() is None, "a dropped model is freed (nothing of it kept)")
net = Net()
step(net, torch.nn.CrossEntropyLoss())
roots = sorted(v[2] for v in ch.modules.values() if v[0] == wire.NO_MODULE)
check(roots == ["CrossEntropyLoss", "CrossEntropyLoss", "Net", "Net"],  # the recorder keeps one of each
      f"a model built again is named as the same root: {roots}")
# Two live models of one class are two roots.
other = Net()
other(torch.randn(2, 4))
roots = sorted(v[2] for v in ch.modules.values() if v[0] == wire.NO_MODULE)
check("Net#2" in roots, f"two live models of one class: {roots}")
remove(m)

# 7. Tied weights are counted once, by the first module that holds them.
class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = torch.nn.Embedding(10, 6)
        self.lm_head = torch.nn.Linear(6, 10, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx):
        return self.lm_head(self.wte(idx))


ch, m = tracker()
Tied()(torch.tensor([1, 2]))
names = ch.by_name()
check(ch.modules[names["Tied.wte"]][1] == 60 * 4 and ch.modules[names["Tied.lm_head"]][1] == 0,
      "tied weights are counted once")
remove(m)

# 8. A forward that raises: its call still ends (the always-called hook), the error is the program's.
class Fails(torch.nn.Module):
    def forward(self, x):
        raise ValueError("the program's own error")


ch, m = tracker()
wrapper = torch.nn.Sequential(torch.nn.Linear(2, 2), Fails())
try:
    wrapper(torch.randn(1, 2))
    check(False, "the program's exception reached it")
except ValueError as e:
    check(str(e) == "the program's own error", "the program's exception is its own")
check(balanced(ch.calls), "a forward that raises still ends its calls")
check(not m.stacks.calls, "nothing left open on the thread")
remove(m)

# 9. Paused: no marks; calls begun before a pause end cleanly.
ch, m = tracker()
m.paused = True
Net()(torch.randn(2, 4))
check(not ch.calls, "paused: nothing marked")
# Outputs hooked before a pause mark nothing in a backward while paused.
ch, m = tracker()
out = Net()(torch.randn(2, 4)).sum()
m.paused = True
out.backward()
check(not backward_marks(ch.calls), "paused: backward marks nothing")
remove(m)

# 10. No global module hook and no hook on the program's modules: Module.__call__ is wrapped, so
# _call_impl keeps its fast path and torch.compile(module) has no global hook to warn about.
import warnings  # noqa: E402
module_ns = torch.nn.modules.module
original_call = torch.nn.Module.__dict__["__call__"]
ch, m = tracker()
check(not module_ns._has_any_global_hook(), "tracking registers no global module hook")
net = Net()
net(torch.randn(2, 4))
check(all(not mod._forward_pre_hooks and not mod._forward_hooks for mod in net.modules()),
      "nothing put on the program's modules")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.compile(Net(), backend="eager")(torch.randn(2, 4))
check(not [w for w in caught if "global hooks" in str(w.message)], f"torch.compile does not warn {[str(w.message) for w in caught]}")
remove(m)
check(torch.nn.Module.__dict__["__call__"] is original_call, "uninstalled: Module.__call__ is the original again")

# A program (or another tool) that wraps Module.__call__ after us keeps its wrapper when we leave,
# and ours then passes every call through.
ch, m = tracker()
theirs_seen = []
ours = torch.nn.Module.__dict__["__call__"]


def theirs(self, *args, **kwargs):
    theirs_seen.append(type(self).__name__)
    return ours(self, *args, **kwargs)


torch.nn.Module.__call__ = theirs
remove(m)
check(torch.nn.Module.__dict__["__call__"] is theirs, "their wrapper stays when ours leaves")
before = len(ch.calls)
torch.nn.Linear(2, 2)(torch.randn(1, 2))
check(theirs_seen == ["Linear"] and len(ch.calls) == before, "ours passes through once removed")
torch.nn.Module.__call__ = original_call

# Pause puts the original back (a paused block costs what an unrecorded one does), resume wraps again.
ch, m = tracker()
m.set_paused(True)
check(torch.nn.Module.__dict__["__call__"] is original_call, "paused: Module.__call__ is the original")
m.set_paused(False)
Net()(torch.randn(2, 4))
check(ch.calls and balanced(ch.calls), "resumed: calls are marked again")
remove(m)

# 11. The tracker library's marks (its builtins: capture/inject/module_builtins.h), when it is built.
if len(sys.argv) > 2:
    from sawtooth_shim import cuda_native  # noqa: E402
    builtins = cuda_native.module_marks(sys.argv[2])
    check(builtins is not None, "the tracker library makes its module builtins")
    enter, exit_, remember, forget = builtins.enter, builtins.exit, builtins.remember, builtins.forget
    # Nothing the program could pass raises.
    for f, f_args in [(enter, (None,)), (exit_, ("x",)), (exit_, (-1,)), (exit_, (2 ** 70,)), (remember, ()),
                      (remember, (1,)), (remember, (object(), "a")), (remember, (object(), -3)),
                      (remember, (object(), 2 ** 40)), (forget, ("x",)), (forget, (2 ** 80,)), (forget, (-1,))]:
        try:
            result = f(*f_args)
        except Exception as e:
            result = e
        check(result is None, f"{f.__name__}{f_args!r} returns None: {result!r}")
    lone = torch.nn.Linear(1, 1)
    check(enter(lone) is None, "an unknown module is not entered")
    remember(lone, 7)
    check(enter(lone) == 7, "a remembered module is entered with its id")
    exit_(7)
    forget(id(lone))
    check(enter(lone) is None, "a forgotten module is unknown again")

    class Logged:
        """The builtins, with what they were asked and answered written down."""
        def __init__(self, real):
            self.real, self.log, self.forgotten = real, [], set()
            self.remember = real.remember

        def forget(self, address):
            self.forgotten.add(address)
            self.real.forget(address)

        def enter(self, module):
            ident = self.real.enter(module)
            self.log.append(("enter", ident))
            return ident

        def exit(self, ident):
            self.log.append(("exit", ident))
            self.real.exit(ident)

    # A model called before the library runs (the CPU's tracker connects later than torch's import
    # on some paths) is remembered when it starts; one named later is remembered as it is named.
    ch, m = tracker()
    torch.manual_seed(123)
    early = Net()
    early(torch.randn(2, 4))
    logged = Logged(builtins)
    m.use_native(logged)
    check(enter(early) == ch.by_name()["Net"], "a module named before the library ran is remembered by it")
    exit_(ch.by_name()["Net"])
    before_calls = len(ch.calls)
    reference = unrecorded(Net)
    torch.manual_seed(123)
    net = Net()
    got = step(net, torch.nn.CrossEntropyLoss())
    check(same(got, reference), "the program computes the same with the library's marks")
    names = ch.by_name()
    entered = [ident for kind, ident in logged.log if kind == "enter" and ident is not None]
    check(len(ch.calls) == before_calls, "marks go to the library, not the live stream")
    check(entered.count(names["Net#2"]) == 1 and entered.count(names["Net#2.shared"]) == 2,
          f"every call entered with its module's id: {entered}")
    opened = []
    for kind, ident in logged.log:
        if kind == "enter" and ident is not None:
            opened.append(ident)
        elif kind == "exit":
            check(opened and opened.pop() == ident, f"exits pair with enters: {logged.log}")
    check(not opened, "no call left open")
    # A module that is gone is forgotten: a new one at its address is not taken for it.
    addresses = {id(sub) for sub in net.modules()}
    dropped = weakref.ref(net)
    del net, got
    gc.collect()
    check(dropped() is None, "the dropped model is freed")
    check(addresses <= logged.forgotten, "the library is told of every dropped module")
    reused, candidates = [], []  # kept alive, so that each takes new memory
    while not reused and len(candidates) < 2000:
        candidates.append(Net())
        reused = [sub for sub in candidates[-1].modules() if id(sub) in addresses]
    # Whether the memory is reused depends on Python's allocator: checked when it is.
    check(all(enter(sub) is None for sub in reused), "a new module at a dropped one's address is not taken for it")
    remove(m)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("shim module checks passed")
