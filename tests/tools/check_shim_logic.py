#!/usr/bin/env python3
"""The recording shim's logic that a CPU-only CI cannot reach through a real program: the
portable path's reading of PyTorch's CUDA history (entries, stacks, the OOM entry, and the
skipping of entries already sent when the history cannot be cleared) and the history settings,
each against fakes of the few torch functions involved; and SIGTERM arriving while the main
thread is half-way through a send (the delivery waits until the send is done, it does not
deadlock on the channel's lock). No torch needed.

Usage: check_shim_logic.py SHIM_PYTHON_DIR"""
import gc
import inspect
import os
import socket
import sys
import tempfile
import threading
import time
import types
import weakref

sys.path.insert(0, sys.argv[1])
import sawtooth_shim  # noqa: E402
from sawtooth_shim import (channel, cpu_allocations, cuda_native, cuda_portable, gradient_tags, guard,  # noqa: E402
                           history, lifecycle, phases, torch_hooks, wire)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


class FakeChannel:
    def __init__(self):
        self.sent, self.notices, self.watermarks, self.metas = [], [], [], []
        self.frames, self.stacks = {}, {}

    def records(self, stream, records, watermark=None):
        self.sent.append((stream, list(records)))
        if watermark is not None:
            self.watermarks.append((stream, watermark))

    def live_packed(self, packed):
        self.sent.append((wire.LIVE, [r for p in packed for r in wire.RECORD.iter_unpack(p)]))

    def flush(self):
        pass

    def record(self, kind, addr=0, size=0, device=0, action=0, range_id=0):
        self.sent.append((wire.LIVE, [(0, addr, size, range_id, wire.NO_STACK, device, action, kind)]))

    def name_id(self, text):
        return self.frames.setdefault(("name", text), len(self.frames))

    def watermark(self, stream, t, idle=False):
        self.watermarks.append((stream, t, idle))

    def notice(self, level, message):
        self.notices.append(message)

    def meta(self, values):
        self.metas.append(values)

    def frame_id(self, name, file, line):
        return self.frames.setdefault((name, file, line), len(self.frames))

    def stack_id(self, ids):
        return self.stacks.setdefault(ids, len(self.stacks))


def fake_torch(traces, can_clear=True):
    calls = []

    def record(enabled="all", context="all", stacks="all", max_entries=0, clear_history=False):
        calls.append(dict(enabled=enabled, context=context, stacks=stacks, max_entries=max_entries,
                          clear_history=clear_history))
        if clear_history:
            traces["cleared"] += 1

    def record_old(enabled="all", context="all", stacks="all", max_entries=0):
        calls.append(dict(enabled=enabled, context=context, stacks=stacks, max_entries=max_entries))

    memory = types.SimpleNamespace(_record_memory_history=record if can_clear else record_old,
                                   _snapshot=lambda: {"device_traces": traces["now"], "segments": []})
    torch = types.SimpleNamespace(cuda=types.SimpleNamespace(memory=memory),
                                  _C=types.SimpleNamespace(_cuda_isHistoryEnabled=lambda: traces.get("on", True)))
    return torch, calls


def entry(action, t_us, addr=0x1000, size=512, frames=None, **extra):
    e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t_us}
    if frames is not None:
        e["frames"] = frames
    e.update(extra)
    return e


# One poll: entries become records in time order with shared stacks; the OOM's addr is the free bytes.
f_model = {"filename": "model.py", "line": 3, "name": "forward"}
f_main = {"filename": "train.py", "line": 9, "name": "<module>"}
traces = {"now": [[entry("alloc", 100, frames=[f_model, f_main]), entry("free_requested", 102),
                   entry("oom", 105, size=1 << 40, device_free=77),
                   entry("alloc", 101, addr=0x2000, frames=[f_model, f_main])],
                  [entry("segment_alloc", 103, addr=0x9000, size=2 << 20)]],
          "cleared": 0}
torch, calls = fake_torch(traces)
ch = FakeChannel()
h = history.History(torch, ch, stacks=True, max_entries=1000)
check(h.can_clear, "clear_history is seen in the signature")
p = cuda_portable.PortableCuda(torch, ch, h)
p.start()
check(calls[-1] == dict(enabled="all", context="alloc", stacks="python", max_entries=1000, clear_history=True),
      f"history turned on with alloc stacks, cleared: {calls[-1]}")
p.poll(force=True)
stream, records = ch.sent[-1]
check(stream == wire.CUDA_HISTORY, f"stream {stream}")
check(len(records) == 5, f"{len(records)} records")
times = [r[0] for r in records]
check(times == sorted(times), "records in time order")
actions = sorted(r[6] for r in records)
check(actions == sorted([wire.ACTIONS[a] for a in ("alloc", "free_requested", "oom", "alloc", "segment_alloc")]),
      f"actions {actions}")
oom = [r for r in records if r[6] == wire.OOM][0]
check(oom[1] == 77 and oom[2] == 1 << 40, f"OOM record {oom}")
allocs = [r for r in records if r[6] == wire.ACTIONS["alloc"]]
check(allocs[0][4] == allocs[1][4] != wire.NO_STACK, "one stack for the same frames")
check(len(ch.frames) == 2, f"frames {ch.frames}")
check([r[5] for r in records if r[6] == wire.ACTIONS["segment_alloc"]] == [1], "device from the trace's position")
check(traces["cleared"] == 2, f"history cleared after the poll ({traces['cleared']})")
check(ch.watermarks[-1][0] == wire.CUDA_HISTORY, "each delivery ends with a watermark")

# Without clear_history: a second snapshot holds the first's entries again; only new ones go.
traces = {"now": [[entry("alloc", 10), entry("alloc", 20, addr=0x2), entry("alloc", 20, addr=0x3)]], "cleared": 0}
torch, calls = fake_torch(traces, can_clear=False)
ch = FakeChannel()
h = history.History(torch, ch, stacks=False, max_entries=1000)
check(not h.can_clear, "an older torch without clear_history")
p = cuda_portable.PortableCuda(torch, ch, h)
p.start()
check(calls[-1]["context"] is None and "clear_history" not in calls[-1], f"no stacks, no clearing: {calls[-1]}")
p.poll(force=True)
check(len(ch.sent[-1][1]) == 3, f"first delivery {len(ch.sent[-1][1])}")
traces["now"] = [[entry("alloc", 10), entry("alloc", 20, addr=0x2), entry("alloc", 20, addr=0x3),
                  entry("alloc", 20, addr=0x4), entry("alloc", 30, addr=0x5)]]
p.poll(force=True)
check([r[1] for r in ch.sent[-1][1]] == [0x4, 0x5], f"second delivery {[hex(r[1]) for r in ch.sent[-1][1]]}")
p.final("exit")
check(ch.watermarks[-1][2] is True, "the stream goes idle at the end")

# A full history is reported once.
traces = {"now": [[entry("alloc", t) for t in range(4)]], "cleared": 0}
torch, calls = fake_torch(traces)
ch = FakeChannel()
p = cuda_portable.PortableCuda(torch, ch, history.History(torch, ch, stacks=False, max_entries=4))
p.start()
p.poll(force=True)
p.poll(force=True)
check(len(ch.notices) == 1 and "--max-entries" in ch.notices[0], f"overflow notices {ch.notices}")

# The program calling _record_memory_history itself: honoured, then ours again if it turned it off.
traces = {"now": [[]], "cleared": 0, "on": True}
torch, calls = fake_torch(traces)
ch = FakeChannel()
h = history.History(torch, ch, stacks=True, max_entries=10)
h.install_patch(guard.Guard(ch))
h.enable()
traces["on"] = False
torch.cuda.memory._record_memory_history(enabled=None)
check(calls[-2]["enabled"] is None and calls[-1]["enabled"] == "all", f"re-enabled after the program's call: {calls[-2:]}")
check(h.program_uses_it and len(ch.notices) == 1, "the user is told once")
check(inspect.unwrap(torch.cuda.memory._record_memory_history) is not None, "the patch keeps __wrapped__")

# The native path: without stacks, PyTorch's history stays off when the allocator hands entries to
# the attached tracker anyway (the probe's block is counted, not sent), also when the tracker is
# already sending (connected for the CPU's allocations); with stacks, or when it does not, history
# is on with a ring of one entry.
class FakeTrackerLib:
    def __init__(self, fires, sending=False):
        self.fires, self.idle, self.calls = fires, 0, []
        self.sending, self.probing = sending, False

    def sawtooth_tracker_probe(self, probing):
        self.probing = bool(probing)

    def takes(self):
        """Whether an entry would be sent (else it is counted as idle)."""
        return self.sending and not self.probing

    def sawtooth_tracker_attach(self):
        self.calls.append("attach")
        return 0

    def sawtooth_tracker_idle_calls(self):
        return self.idle

    def sawtooth_tracker_start(self, path, stacks, interval):
        self.calls.append(("start", stacks))
        return 0

    def sawtooth_tracker_pause(self, paused):
        self.calls.append(("pause", paused))

    def sawtooth_tracker_tag_modules(self, tag):
        self.calls.append(("tag modules", tag))


for stacks, fires, sending, want_history in ((False, True, False, False), (False, False, False, True),
                                             (True, True, False, True), (False, True, True, False)):
    traces = {"now": [[]], "cleared": 0, "on": False}
    torch, calls = fake_torch(traces)
    lib = FakeTrackerLib(fires, sending)
    blocks = []

    def alloc(size, lib=lib):
        blocks.append(size)
        lib.idle += 2 if lib.fires and not lib.takes() else 0  # the block's alloc and free, counted
        return 0x7000

    torch.cuda.caching_allocator_alloc = alloc
    torch.cuda.caching_allocator_delete = lambda ptr: blocks.append("freed")
    torch._C._cuda_emptyCache = lambda: blocks.append("segment released")
    ch = FakeChannel()
    native = cuda_native.NativeCuda(lib, history.History(torch, ch, stacks=stacks, max_entries=1000), "/sock", 50)
    native.start()
    what = f"stacks={stacks}, tracker fires without history={fires}, already sending={sending}"
    check(bool(calls) == want_history, f"{what}: history calls {calls}")
    if want_history:
        check(calls[-1]["max_entries"] == 1 and calls[-1]["context"] == ("alloc" if stacks else None),
              f"{what}: a ring of one entry {calls[-1]}")
    check(blocks == ([] if stacks else [1, "freed", "segment released"]), f"{what}: probe block {blocks}")
    check(("start", int(stacks)) in lib.calls and native.started, f"{what}: tracker started {lib.calls}")
    check({"shim_history": "on" if want_history else "off"} in ch.metas, f"{what}: meta {ch.metas}")
    # Paused in place (the in-process overhead measurement): tracker, history, CUPTI's activities,
    # phases and categories off, then back.
    shim = torch_hooks.Shim(ch, {}, "main")
    shim.cuda = native
    shim.phases = phases.Phases(types.SimpleNamespace(), ch, lambda: None)
    cupti_calls = []
    shim._cupti_library = lambda: types.SimpleNamespace(sawtooth_cupti_pause=cupti_calls.append)
    sawtooth_shim._active = shim
    n = len(calls)
    check(sawtooth_shim.pause_recording() and not sawtooth_shim.pause_recording(), f"{what}: pauses once")
    check(lib.calls[-1] == ("pause", 1), f"{what}: tracker paused {lib.calls}")
    check([c["enabled"] for c in calls[n:]] == ([None] if want_history else []), f"{what}: history off {calls[n:]}")
    check(cupti_calls == [3], f"{what}: CUPTI's activities and the device sampler paused {cupti_calls}")
    sent = len(ch.sent)
    shim.phases.begin("forward")
    shim.phases.tag([types.SimpleNamespace(data_ptr=lambda: 0x9000, get_device=lambda: 0)], wire.GRADIENT)
    check(len(ch.sent) == sent and shim.phases.open == [], f"{what}: no phase or category while paused {ch.sent[sent:]}")
    check(sawtooth_shim.resume_recording(), f"{what}: resumes")
    check(lib.calls[-1] == ("pause", 0), f"{what}: tracker resumed {lib.calls}")
    check([c["enabled"] for c in calls[n:]] == ([None, "all"] if want_history else []),
          f"{what}: history back on {calls[n:]}")
    check(cupti_calls == [3, 0], f"{what}: CUPTI's activities and the sampler back {cupti_calls}")
    shim.phases.tag([types.SimpleNamespace(data_ptr=lambda: 0x9000, get_device=lambda: 0)], wire.GRADIENT)
    check(len(ch.sent) == sent + 1, f"{what}: categories again after the pause {ch.sent[sent:]}")
    sawtooth_shim.pause_recording()
    sawtooth_shim.resume_recording()
    check(sum("paused the recording" in m for m in ch.notices) == 1, f"{what}: told once {ch.notices}")
    tracker_calls = len(lib.calls)
    check(sawtooth_shim.pause_recording(parts=("cupti",)) and sawtooth_shim.resume_recording(),
          f"{what}: a part alone pauses and resumes")
    check(len(lib.calls) == tracker_calls and cupti_calls[-2:] == [1, 0] and not shim.phases.paused,
          f"{what}: CUPTI alone paused {lib.calls[tracker_calls:]} {cupti_calls}")
    check(sawtooth_shim.pause_recording(parts=("sampler",)) and sawtooth_shim.resume_recording() and
          cupti_calls[-2:] == [2, 0] and len(lib.calls) == tracker_calls, f"{what}: the sampler alone {cupti_calls}")
    # The allocations' module tags alone: the tracker goes on sending, without them, then with them.
    check(sawtooth_shim.pause_recording(parts=("module-tags",)) and sawtooth_shim.resume_recording() and
          lib.calls[tracker_calls:] == [("tag modules", 0), ("tag modules", 1)] and cupti_calls[-2:] == [2, 0],
          f"{what}: module tags alone {lib.calls[tracker_calls:]}")
sawtooth_shim._active = None
check(not sawtooth_shim.pause_recording(), "nothing to pause before the shim is active")

# An optimizer's step: parameters tagged at the first step, gradients at every step (one buffer,
# the same records as packing each), the parameter list rebuilt only when the groups change.
def fake_tensor(ptr, device=0):
    return types.SimpleNamespace(data_ptr=lambda: ptr, get_device=lambda: device)


def fake_param(grad_ptr, device=0):
    p = fake_tensor(0x100 + grad_ptr, device)
    p.grad = fake_tensor(grad_ptr, device) if grad_ptr is not None else None
    return p


def grad_tags_in(records):
    return [(r[1], r[5]) for r in records if r[7] == wire.TAG and r[6] == wire.GRADIENT]


opt_params = [fake_param(0x1000 * (i + 1), device=i % 2) for i in range(5)]
optimizer = types.SimpleNamespace(param_groups=[{"params": opt_params[:3]}, {"params": opt_params[3:]}], state={})
ch = FakeChannel()
fake_module = types.SimpleNamespace(register_module_forward_pre_hook=lambda hook: types.SimpleNamespace(remove=lambda: None))
ph = phases.Phases(types.SimpleNamespace(Tensor=object, nn=types.SimpleNamespace(
    modules=types.SimpleNamespace(module=fake_module))), ch, lambda: None)
ph.step_begin(optimizer)
ph.step_end(optimizer)
tags = [r for _, records in ch.sent for r in records if r[7] == wire.TAG]
check([(r[1], r[6]) for r in tags if r[6] == wire.PARAMETER] == [(p.data_ptr(), wire.PARAMETER) for p in opt_params],
      f"optimizer: parameters tagged at the first step {tags}")
want = [(0x1000 * (i + 1), i % 2) for i in range(5)]
check(grad_tags_in(tags) == want, f"optimizer: gradients tagged with their devices {grad_tags_in(tags)}")
check(len({r[0] for r in tags if r[6] == wire.GRADIENT}) == 1 and all(r[4] == wire.NO_STACK and r[2] == 0 for r in tags),
      "optimizer: one time, no stack, no size")
ch.sent.clear()
opt_params[1].grad = None  # a parameter without a gradient this step, and an empty one
opt_params[4].grad = fake_tensor(0)
ph.step_begin(optimizer)
got = grad_tags_in([r for _, records in ch.sent for r in records])
check(got == [want[0], want[2], want[3]], f"optimizer: missing and empty gradients left out {got}")
check(not any(r[6] == wire.PARAMETER for _, records in ch.sent for r in records), "optimizer: parameters once")
ch.sent.clear()
extra = fake_param(0x7000, device=3)
optimizer.param_groups.append({"params": [extra]})
opt_params[1].grad, opt_params[4].grad = fake_tensor(0x2000, 1), fake_tensor(0x5000, 0)
ph.step_begin(optimizer)
got = grad_tags_in([r for _, records in ch.sent for r in records])
check(got == want + [(0x7000, 3)], f"optimizer: a new group's gradients {got}")
slow = gradient_tags.OptimizerTags._records_one_by_one([p.grad for p in opt_params + [extra]], 77)
fast_tags = gradient_tags.OptimizerTags()
check(fast_tags.gradient_records(fast_tags.parameters(optimizer), 77) == slow, "optimizer: the prepared buffer holds what packing each record gives")

# The live stream waits for company: phase markers and tags go out with the next send (names first,
# then the waiting records, then what that send carries), at a flush, or from the thread after
# LIVE_DELAY_NS.
def live_channel():
    path = os.path.join(tempfile.mkdtemp(), "sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    ch = channel.Channel(path, {"role": "test"})
    conn, _ = server.accept()
    conn.settimeout(5)
    return ch, conn


def frames_now(conn, wait=0.0):
    time.sleep(wait)
    conn.setblocking(False)
    data = b""
    try:
        while True:
            chunk = conn.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    except BlockingIOError:
        pass
    conn.settimeout(5)
    out = []
    while len(data) >= wire.HEADER.size:
        size, frame_type, stream, _ = wire.HEADER.unpack_from(data)
        out.append((frame_type, stream, data[wire.HEADER.size:wire.HEADER.size + size]))
        data = data[wire.HEADER.size + size:]
    return out


delay, sweep = channel.LIVE_DELAY_NS, channel.SWEEP_S
channel.LIVE_DELAY_NS, channel.SWEEP_S = 60_000_000_000, 60  # nothing leaves by age or by the thread in this part
ch, conn = live_channel()
check([f[0] for f in frames_now(conn, 0.05)] == [wire.HELLO], "live: the hello alone at first")
ch.record(wire.PHASE_BEGIN, addr=ch.name_id("forward"))
ch.live_packed([wire.RECORD.pack(1, 0x9000, 0, 0, wire.NO_STACK, 0, wire.GRADIENT, wire.TAG, wire.NO_MODULE,
                                 wire.NO_PASS)])
check(frames_now(conn, 0.05) == [], "live: markers and tags wait")
ch.notice("info", "hello")
got = frames_now(conn, 0.05)
check([(f[0], f[1]) for f in got] == [(wire.NAMES, wire.LIVE), (wire.RECORDS, wire.LIVE), (wire.NOTICE, 0)],
      f"live: the next send takes names, then the waiting records, then its own {[(f[0], f[1]) for f in got]}")
check(len(got) > 1 and [wire.RECORD.unpack_from(got[1][2], i)[7] for i in (0, wire.RECORD.size)] ==
      [wire.PHASE_BEGIN, wire.TAG], "live: both waiting records, in order")
ch.record(wire.PHASE_END, addr=ch.name_id("forward"))
ch.flush()
check([(f[0], f[1]) for f in frames_now(conn, 0.05)] == [(wire.RECORDS, wire.LIVE)], "live: a flush sends what waits")
channel.LIVE_DELAY_NS = 20_000_000  # the thread still asleep: the program's thread sends what waited that long
ch.record(wire.PHASE_BEGIN, addr=ch.name_id("forward"))
check(frames_now(conn, 0.05) == [], "live: a record waits for company")
ch.record(wire.PHASE_END, addr=ch.name_id("forward"))
got = frames_now(conn, 0.05)
check([(f[0], f[1]) for f in got] == [(wire.RECORDS, wire.LIVE)] and len(got[0][2]) == 2 * wire.RECORD.size,
      f"live: the next record after the delay sends both {got}")
channel.SWEEP_S = 0.02
ch, conn = live_channel()
frames_now(conn, 0.05)
ch.record(wire.PHASE_BEGIN, addr=ch.name_id("backward"))
got = []
for _ in range(100):  # the thread sends after 20 ms; a loaded machine may take longer
    got += frames_now(conn, 0.05)
    if got:
        break
check([f[0] for f in got] == [wire.NAMES, wire.RECORDS], f"live: the thread sends what waits {got}")
# After idle sweeps the thread sleeps until a record waits, then sweeps again.
idle_sweeps = channel._IDLE_SWEEPS
channel.SWEEP_S, channel._IDLE_SWEEPS = 0.005, 2
time.sleep(0.3)
check(ch._sweeper_idle, "live: the thread sleeps after idle sweeps")
ch.record(wire.PHASE_END, addr=ch.name_id("backward"))
got = []
for _ in range(100):
    got += frames_now(conn, 0.05)
    if got:
        break
check([f[0] for f in got] == [wire.RECORDS], f"live: a waiting record wakes the sleeping thread {got}")
channel.SWEEP_S, channel._IDLE_SWEEPS = sweep, idle_sweeps
channel.LIVE_DELAY_NS = delay

# SIGTERM inside a send: the handler runs in the main thread between two bytecodes, possibly with
# the channel's lock held. The last delivery must wait for the send to finish, then the process dies.
lock = channel.SendLock()
order = []
with lock:
    order.append("send starts")
    lock.when_free(lambda: order.append("deferred work"))
    order.append("send ends")
lock.when_free(lambda: order.append("immediate work"))
check(order == ["send starts", "send ends", "deferred work", "immediate work"], f"deferred order {order}")


class LockedChannel:
    def __init__(self):
        self.lock = channel.SendLock()
        self.sent = []

    def when_free(self, work):
        self.lock.when_free(work)

    def bye(self, reason):
        with self.lock:  # a plain threading.Lock here would hang if called from inside a send
            self.sent.append(("bye", reason))


class FinalShim:
    def __init__(self, ch):
        self.ch = ch

    def final(self, reason):
        self.ch.bye(reason)

    def final_cupti(self, reason):
        self.ch.sent.append(("cupti", reason))


killed = []
real_kill, real_signal = lifecycle.os.kill, lifecycle.signal.signal
lifecycle.os.kill = lambda pid, sig: killed.append(sig)
lifecycle.signal.signal = lambda sig, handler: None
try:
    ch = LockedChannel()
    life = lifecycle.Lifecycle(FinalShim(ch))
    with ch.lock:
        life._on_sigterm(15, None)  # as if the signal came while the main thread was sending
        check(ch.sent == [] and killed == [], "nothing is sent from inside a send")
    # The CUPTI library's last delivery too: the process dies by the signal, its atexit never runs.
    check(ch.sent == [("bye", "killed by SIGTERM"), ("cupti", "killed by SIGTERM")],
          f"delivered after the send, the CUPTI library's too: {ch.sent}")
    check(killed == [lifecycle.signal.SIGTERM], f"and then dies by SIGTERM: {killed}")
finally:
    lifecycle.os.kill, lifecycle.signal.signal = real_kill, real_signal


def main_thread_only_signal(sig, handler):
    """signal.signal as CPython has it: a ValueError on any thread but the main one."""
    if threading.current_thread() is not threading.main_thread():
        raise ValueError("signal only works in main thread of the main interpreter")


# The deferred delivery may run on whichever thread leaves the channel's lock next (the sender's):
# it must not change a signal disposition there, or the program never dies by SIGTERM.
killed.clear()
lifecycle.os.kill = lambda pid, sig: killed.append(sig)
lifecycle.signal.signal = main_thread_only_signal
try:
    ch = LockedChannel()
    life = lifecycle.Lifecycle(FinalShim(ch))
    with ch.lock:
        life._on_sigterm(15, None)
        deferred = ch.lock._deferred.pop(0)  # taken over by another thread, as a race can
    errors = []

    def run_deferred():
        try:
            deferred()
        except Exception as e:
            errors.append(e)

    other = threading.Thread(target=run_deferred)
    other.start()
    other.join()
    check(errors == [], f"the deferred delivery on another thread raised: {errors}")
    check(ch.sent[0] == ("bye", "killed by SIGTERM") and killed == [lifecycle.signal.SIGTERM],
          f"delivered and died by SIGTERM from another thread: {ch.sent} {killed}")
finally:
    lifecycle.os.kill, lifecycle.signal.signal = real_kill, real_signal

# -- A guest in the program (issue 27) ------------------------------------------------------------
class FakeRecordFunction:
    """torch.autograd.profiler.record_function as the program uses it: a context manager."""
    entered = []

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        FakeRecordFunction.entered.append(self.name)
        return self

    def __exit__(self, *exc):
        return False


class FakeHandle:
    next_id = 0

    def __init__(self, hooks):
        self.hooks, self.id = hooks, FakeHandle.next_id
        FakeHandle.next_id += 1

    def remove(self):
        self.hooks.pop(self.id, None)


def guest_torch(scopes=True):
    """The parts of torch the shim's phases and CPU recording touch."""
    module_ns = types.SimpleNamespace(_global_forward_pre_hooks={}, _global_forward_hooks={},
                                      _global_backward_pre_hooks={}, _global_backward_hooks={})

    def register_module_forward_pre_hook(hook):
        handle = FakeHandle(module_ns._global_forward_pre_hooks)
        module_ns._global_forward_pre_hooks[handle.id] = hook
        return handle
    module_ns.register_module_forward_pre_hook = register_module_forward_pre_hook
    module_ns._has_any_global_hook = lambda: bool(module_ns._global_forward_pre_hooks or module_ns._global_forward_hooks)
    profiler_calls = []

    def enable(config, activities, *scope):
        if scope and not scopes:
            raise TypeError("_enable_profiler(): incompatible function arguments")
        profiler_calls.append(("enable", scope[0] if scope else None))

    def disable():
        profiler_calls.append(("disable",))
        return types.SimpleNamespace(experimental_event_tree=lambda: [])

    record_scope = types.SimpleNamespace(FUNCTION="FUNCTION", USER_SCOPE="USER_SCOPE", LITE_INTERPRETER="LITE_INTERPRETER")
    torch = types.SimpleNamespace(
        Tensor=object, is_grad_enabled=lambda: True,
        nn=types.SimpleNamespace(modules=types.SimpleNamespace(module=module_ns)),
        autograd=types.SimpleNamespace(profiler=types.SimpleNamespace(record_function=FakeRecordFunction)),
        _C=types.SimpleNamespace(
            _profiler=types.SimpleNamespace(RecordScope=record_scope,
                                            _EventType=types.SimpleNamespace(Allocation="allocation")),
            _autograd=types.SimpleNamespace(_prepare_profiler=lambda config, activities: None, _enable_profiler=enable,
                                            _disable_profiler=disable)),
        compiler=types.SimpleNamespace(is_compiling=lambda: torch.compiling), compiling=False)
    return torch, profiler_calls


def ready_cpu(torch, ph):
    cpu = cpu_allocations.CpuAllocations(torch, FakeChannel(), ph)
    cpu.config = ("config", {"CPU"})
    return cpu


# The CPU profiler session observes no operator and no range: a range it observed would, ending
# after a restart, write into the stopped session's freed memory (crashes at exit).
torch, profiler_calls = guest_torch()
ph = phases.Phases(torch, FakeChannel(), lambda: None)
cpu = ready_cpu(torch, ph)
cpu.start()
scope = profiler_calls[-1][1]
check(profiler_calls[-1][0] == "enable" and scope and "USER_SCOPE" not in scope and "FUNCTION" not in scope,
      f"cpu: the profiler observes no operator and no range {profiler_calls}")
ph._install_record_function()
with torch.autograd.profiler.record_function("program's range"):
    check(ph.ranges.depth == 1, "ranges: an open range is counted")
    check(cpu.cut(force=True) and profiler_calls[-2:] == [("disable",), ("enable", scope)],
          f"cpu: a session that observes no range is cut inside one {profiler_calls[-2:]}")
check(ph.ranges.depth == 0, "ranges: and uncounted when it closes")

# A torch without the scopes argument: the session observes ranges, so it is cut between them.
torch, profiler_calls = guest_torch(scopes=False)
ph = phases.Phases(torch, FakeChannel(), lambda: None)
ph._install_record_function()
cpu = ready_cpu(torch, ph)
cpu.start()
check(profiler_calls == [("enable", None)] and cpu.scopes is None, f"cpu: an older torch's profiler {profiler_calls}")
with torch.autograd.profiler.record_function("program's range"):
    check(not cpu.cut(force=True) and profiler_calls == [("enable", None)], f"cpu: no cut inside a range {profiler_calls}")
check(cpu.cut(force=True) and profiler_calls[-2:] == [("disable",), ("enable", None)], "cpu: the cut after it")

# The step's end runs inside the optimizer's range (Optimizer.step#...): its work waits until that
# range has closed — not inside the program's annotation — and runs once.
torch, profiler_calls = guest_torch()
done = []
ph = phases.Phases(torch, FakeChannel(), lambda: done.append(ph.ranges.depth))
ph._install_record_function()
with torch.autograd.profiler.record_function("epoch"):
    with torch.autograd.profiler.record_function("Optimizer.step#SGD.step"):
        ph.quiet_point()
        ph.quiet_point()
        check(done == [], "quiet point: waits inside the optimizer's range")
    check(done == [1], f"quiet point: runs once when the step's range closes, inside the outer one {done}")
ph.quiet_point()
check(done == [1, 0], f"quiet point: at once outside any range {done}")

# After the program's own profiler our session restarts only once the ranges open now (which the
# program's session observed) have closed.
torch, profiler_calls = guest_torch()
ph = phases.Phases(torch, FakeChannel(), lambda: None)
ph._install_record_function()
cpu = ready_cpu(torch, ph)
cpu.start()
with torch.autograd.profiler.record_function("outer"):
    cpu.pause()
    check(not cpu.running and profiler_calls[-1] == ("disable",), "profiler: ours stops for the program's")
    cpu.resume()
    check(not cpu.running, "profiler: no restart inside a range the program's session observed")
check(cpu.running and profiler_calls[-1][0] == "enable", f"profiler: restarted after the range {profiler_calls[-2:]}")

# Identity tables hold nothing: an object leaves with its entry, and a new object at a reused
# address is a new entry.
class Thing:
    pass


table = guard.Identities()
thing = Thing()
table.add(thing, "tags")
check(table.get(thing) == "tags" and thing in table, "identities: remembered while alive")
ref = weakref.ref(thing)
del thing
check(ref() is None and len(table) == 0, "identities: hold no reference, and forget the dead")
unweakable = 12345678901234567890
table.add(unweakable, "by id")
check(table.get(unweakable) == "by id", "identities: an object without weak references is kept by id")

# An optimizer and its parameters die with the program's last reference (the shim's tags kept
# three of five dropped models alive), and a new optimizer is tagged anew.
class FakeOptimizer:
    def __init__(self, params):
        self.param_groups = [{"params": params}]
        self.state = {}


class FakeParam:
    def __init__(self, ptr):
        self.ptr, self.grad = ptr, types.SimpleNamespace(data_ptr=lambda: ptr + 1, get_device=lambda: -1)

    def data_ptr(self):
        return self.ptr

    def get_device(self):
        return -1


torch, _ = guest_torch()
ch = FakeChannel()
ph = phases.Phases(torch, ch, lambda: None)
for round_ in range(2):
    params = [FakeParam(0x1000 * (i + 1) + round_) for i in range(3)]
    opt = FakeOptimizer(params)
    refs = [weakref.ref(opt)] + [weakref.ref(p) for p in params]
    ph.step_begin(opt)
    ph.step_end(opt)
    tagged = [r[1] for _, records in ch.sent for r in records if r[7] == wire.TAG and r[6] == wire.PARAMETER]
    check(tagged[-3:] == [p.ptr for p in params], f"optimizer {round_}: its parameters tagged at its first step")
    del opt, params
    gc.collect()
    check(all(r() is None for r in refs), f"optimizer {round_}: the shim keeps it and its parameters alive")
check(len(ph.optimizers) == 0, "optimizers: no entry outlives its optimizer")

# The optimizer's step hooks run inside its range (Optimizer.step#...): inside it they send only
# the optimizer phase's markers; the tags (parameters, gradients, state), the next forward's arming
# and the step's end work wait until that range has closed (issue 27: the shim's work was counted
# in the program's annotation), and then run once, in order, still inside the program's own range.
torch, _ = guest_torch()
ch = FakeChannel()
quiet = []
ph = phases.Phases(torch, ch, lambda: quiet.append(ph.ranges.depth))
ph._install_record_function()
params = [FakeParam(0x9000), FakeParam(0xA000)]
opt = FakeOptimizer(params)
with torch.autograd.profiler.record_function("epoch"):
    with torch.autograd.profiler.record_function("Optimizer.step#FakeOptimizer.step"):
        ch.sent.clear()
        ph.step_begin(opt)
        ph.step_end(opt)
        inside = [r[7] for _, records in ch.sent for r in records]
        check(inside == [wire.PHASE_BEGIN, wire.PHASE_END] and quiet == [],
              f"optimizer: inside the step's range only its phase markers {inside}, quiet {quiet}")
    after = [(r[7], r[6]) for _, records in ch.sent for r in records][2:]
    check([a for a in after if a[0] == wire.TAG] == [(wire.TAG, wire.PARAMETER)] * 2 + [(wire.TAG, wire.GRADIENT)] * 2
          and quiet == [1], f"optimizer: the tags and the step's end once the range closed {after}, quiet {quiet}")
check(quiet == [1], f"optimizer: the step's end work ran once {quiet}")

# A hook body that fails says so once and returns None (what a hook returns changes the program's
# arguments); while dynamo traces, our hooks do nothing.
torch, _ = guest_torch()
ch = FakeChannel()
g = guard.Guard(ch, torch)
seen = []


def failing(*args):
    seen.append(args)
    raise RuntimeError("ScriptModule hooks are not supported")


hook = g.wrap("a hook", failing)
check(hook(1) is None and hook(2) is None and len(ch.notices) == 1 and "a hook failed" in ch.notices[0],
      f"guard: one notice, nothing raised {ch.notices}")
check(g.wrap("another", lambda: 5)() is None, "guard: a hook returns None")
torch.compiling = True
check(hook(3) is None and seen == [(1,), (2,)], "guard: nothing while dynamo traces")
torch.compiling = False


def interrupted():
    raise KeyboardInterrupt


try:
    g.call("program's signal", interrupted)
    check(False, "guard: KeyboardInterrupt is the program's")
except KeyboardInterrupt:
    pass

# The forward phase uses one global hook, armed at step boundaries and gone at the first call: no
# hook on the program's modules, and torch.compile's check for global hooks does not count it.
torch, _ = guest_torch()
module_ns = torch.nn.modules.module
ch = FakeChannel()
ph = phases.Phases(torch, ch, lambda: None)
ph._hide_global_hook()
ph.arm()
check(len(module_ns._global_forward_pre_hooks) == 1 and not module_ns._has_any_global_hook(),
      "global hook: armed, and hidden from torch.compile's check")
module = types.SimpleNamespace(parameters=lambda: iter([fake_tensor(0x500)]))
hook = next(iter(module_ns._global_forward_pre_hooks.values()))
check(hook(module, ()) is None, "global hook: returns None")
check(module_ns._global_forward_pre_hooks == {} and ph.open == ["forward"], f"global hook: removed at the first call {ph.open}")
check(not hasattr(module, "_forward_pre_hooks"), "global hook: nothing put on the program's module")
module_ns._global_forward_pre_hooks[999] = print
check(module_ns._has_any_global_hook(), "global hook: the program's own still count")

# A warning raised inside a wrapped function (stacklevel=2, as PyTorch's are) names the program's
# line, as it would unrecorded: the wrapper's frame is skipped.
import warnings  # noqa: E402


def warns():
    warnings.warn("inside the program's function", UserWarning, stacklevel=2)


wrapped = guard.around(warns, guard.Guard(FakeChannel()), "a wrapper", lambda: None, lambda: None)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", UserWarning)
    line = inspect.currentframe().f_lineno + 1
    wrapped()
check(len(caught) == 1 and caught[0].filename == __file__ and caught[0].lineno == line,
      f"wrapper: the warning names the caller's line {[(w.filename, w.lineno) for w in caught]} (want {line})")
check(wrapped.__wrapped__ is warns and wrapped.__name__ == "warns", "wrapper: named as the function it wraps")

# The CPU chunk's walk (cpu_allocations._allocations): allocations and frees in time order, in the
# wall clock's place the monotonic one, an operator's children read where this torch observes them,
# another device's allocation left to its allocator's history where an accelerator is available.
class FakeDevice:
    def __init__(self, kind):
        self.kind = kind

    def __eq__(self, other):
        return isinstance(other, FakeDevice) and other.kind == self.kind

    def __ne__(self, other):
        return not self == other


class FakeAllocation:
    def __init__(self, ptr, size, device="cpu"):
        self.ptr, self.alloc_size, self.device = ptr, size, FakeDevice(device)


def fake_event(t, fields=None, children=()):
    return types.SimpleNamespace(start_time_ns=t, extra_fields=fields, children=list(children), tag="op")


def walked(accelerator):
    fake = types.SimpleNamespace(
        device=FakeDevice, accelerator=types.SimpleNamespace(is_available=lambda: accelerator),
        cuda=types.SimpleNamespace(is_initialized=lambda: accelerator),
        _C=types.SimpleNamespace(_profiler=types.SimpleNamespace(_ExtraFields_Allocation=FakeAllocation,
                                                                 _EventType=types.SimpleNamespace(Allocation="a"))))
    tree = [fake_event(10, FakeAllocation(0x10, 64)),
            fake_event(20, None, [fake_event(25, FakeAllocation(0x20, 32)),
                                  fake_event(26, None, [fake_event(27, FakeAllocation(0x30, 8, "cuda"))]),
                                  fake_event(28, FakeAllocation(0x20, -32))]),
            fake_event(15, FakeAllocation(0x40, 16))]
    cpu = cpu_allocations.CpuAllocations(fake, FakeChannel())
    got = cpu._allocations(types.SimpleNamespace(experimental_event_tree=lambda: tree))
    offset = time.time_ns() - time.monotonic_ns()
    return [(round((t + offset) / 1e6), addr, size, action) for t, addr, size, _, _, _, action, _ in got]


want = [(0, 0x10, 64, wire.ALLOC), (0, 0x40, 16, wire.ALLOC), (0, 0x20, 32, wire.ALLOC), (0, 0x30, 8, wire.ALLOC),
        (0, 0x20, 32, wire.FREE_COMPLETED)]
check(walked(False) == want, f"cpu walk, no accelerator: {walked(False)}")
check(walked(True) == [w for w in want if w[1] != 0x30], f"cpu walk, an accelerator: {walked(True)}")

# --rung: what it accepts, and the canonical id the file's meta names (the ladder's row).
from sawtooth_shim import rungs  # noqa: E402
check(rungs.parse("bf16")[3] == "bf16" and rungs.parse("compile")[3] == "compile", "bf16 and compile parse")
check(rungs.parse("checkpoint")[1:] == (1, False, "checkpoint:every=1"), f"checkpoint: {rungs.parse('checkpoint')}")
check(rungs.parse("checkpoint:every=4:reentrant")[1:] == (4, True, "checkpoint:every=4:reentrant"),
      "checkpoint:every=4:reentrant")
for bad in ("fp8", "checkpoint:every=0", "checkpoint:every=x", "checkpoint:sometimes", "bf16:every=2"):
    try:
        rungs.parse(bad)
        check(False, f"--rung {bad} is refused")
    except ValueError:
        pass

# The OOM observer: PyTorch passes (device, request, what the process may use, device free); the
# bytes allocated then come from its own counter, read in the observer (its lock is free there).
ch = FakeChannel()
shim = torch_hooks.Shim(ch, {}, "main")
fake_cuda = types.SimpleNamespace(mem_get_info=lambda d: (100, 1000), memory_allocated=lambda d: 640)
shim.torch = types.SimpleNamespace(cuda=fake_cuda)
shim.on_oom(0, 4096, 700, 90)
oom_meta = ch.metas[-1] if ch.metas else {}
check(oom_meta.get("oom.requested_bytes") == 4096 and oom_meta.get("oom.allocated_bytes") == 640
      and oom_meta.get("oom.device_limit_bytes") == 700 and oom_meta.get("oom.device_free_bytes") == 90
      and oom_meta.get("oom.device_total_bytes") == 1000, f"OOM observer's meta {oom_meta}")
check(ch.notices and "4096 bytes asked for" in ch.notices[-1] and "640 allocated by PyTorch" in ch.notices[-1]
      and "may use 700" in ch.notices[-1], f"OOM notice {ch.notices}")
# A torch whose counters fail: the request and the limit still, no allocated figure made up.
fake_cuda.memory_allocated = lambda d: (_ for _ in ()).throw(RuntimeError("no counters"))
shim.on_oom(0, 4096, 700, 90)
check("oom.allocated_bytes" not in ch.metas[-1] and ch.metas[-1].get("oom.requested_bytes") == 4096,
      f"OOM observer without counters {ch.metas[-1]}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("shim logic checks passed")
