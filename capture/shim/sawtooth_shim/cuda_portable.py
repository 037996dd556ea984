"""The portable path for PyTorch's CUDA allocator: PyTorch's own history recording, read back at
step boundaries (where the program's other threads are idle) and at exit, signal and OOM. Each
delivery takes a snapshot, clears the history and sends the entries with their Python stacks;
each entry costs about as much as converting it to Python does, so this path is slower than the
native tracker (measured in bench/results). With torch versions that cannot clear the history,
entries already sent are skipped by time instead.
"""
import time

from . import wire

_MIN_INTERVAL_NS = 250_000_000
_BUDGET = 0.02  # a delivery waits until its cost is this fraction of the time since the last


class PortableCuda:
    mode = "portable"

    def __init__(self, torch, channel, history):
        self.torch = torch
        self.ch = channel
        self.history = history
        self.started = False
        self.last_ns = 0
        self.last_cost_ns = 0
        self.seen = {}  # device -> (time_us, entries at that time) already sent, when history is not cleared
        self.overflow_told = False
        self.entries = 0

    def start(self):
        self.history.enable(clear=True)
        self.started = True
        self.last_ns = time.monotonic_ns()
        self.ch.watermark(wire.CUDA_HISTORY, self.last_ns)

    def poll(self, final=False, force=False):
        if not self.started:
            return
        begin = time.monotonic_ns()
        if not final and not force:
            wait = max(_MIN_INTERVAL_NS, self.last_cost_ns / _BUDGET)
            if begin - self.last_ns < wait:
                return
        offset = time.time_ns() - time.monotonic_ns()
        snapshot = self.torch.cuda.memory._snapshot()
        clearing = self.history.can_clear and not self.history.program_uses_it
        if clearing and not final:
            self.history.enable(clear=True)
        records = self._records(snapshot.get("device_traces", []), offset, clearing)
        self.entries += len(records)
        self.ch.records(wire.CUDA_HISTORY, records, watermark=begin)
        self.last_ns = time.monotonic_ns()
        self.last_cost_ns = self.last_ns - begin

    def _records(self, device_traces, offset, cleared):
        actions = wire.ACTIONS
        frame_ids = {}  # id(frame dict) -> our frame id: the snapshot shares frame dicts
        out = []
        for device, entries in enumerate(device_traces):
            if len(entries) >= self.history.max_entries and not self.overflow_told:
                self.overflow_told = True
                self.ch.notice("warning", f"PyTorch's history filled its {self.history.max_entries} entries between two "
                                          f"deliveries: older events were lost (raise --max-entries)")
            last_us, at_last = self.seen.get(device, (-1, 0))
            same = 0
            for e in entries:
                t_us = e.get("time_us", 0)
                if not cleared:
                    if t_us < last_us or (t_us == last_us and same < at_last):
                        same += t_us == last_us
                        continue
                action = actions.get(e.get("action"))
                if action is None:
                    continue
                stack = wire.NO_STACK
                frames = e.get("frames")
                if frames:
                    ids = []
                    for f in frames:
                        i = frame_ids.get(id(f))
                        if i is None:
                            i = frame_ids[id(f)] = self.ch.frame_id(f.get("name", "?"), f.get("filename", "?"), f.get("line", 0))
                        ids.append(i)
                    stack = self.ch.stack_id(tuple(ids))
                addr = e.get("device_free", 0) if action == wire.OOM else e.get("addr", 0)
                out.append((t_us * 1000 - offset, max(addr, 0), max(e.get("size", 0), 0), max(e.get("stream", 0), 0),
                            stack, device, action, wire.ALLOCATOR))
            if entries and not cleared:
                newest = entries[-1].get("time_us", 0)
                count = sum(1 for e in entries if e.get("time_us", 0) == newest)
                self.seen[device] = (newest, count)
        out.sort(key=lambda r: r[0])
        return out

    def final(self, reason):
        if self.started:
            self.poll(final=True)
            self.ch.watermark(wire.CUDA_HISTORY, time.monotonic_ns(), idle=True)
            self.started = False

    def after_fork(self):
        self.started = False
