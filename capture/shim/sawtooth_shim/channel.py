"""The shim's connection to sawtooth-record (a Unix socket named by SAWTOOTH_SOCKET).

Every send is whole frames under one lock (the OOM observer and atexit may send from other
threads). When the recorder is gone the channel closes quietly: the program carries on unrecorded.

Phase markers and tags (the live stream) wait for company and go out in one send: a send costs
more than building a record, and a training step makes tens of them. A thread sends what waits
every SWEEP_S; the step's end (flush) and every other send take the waiting records first (order
and names stay as made). The program's own thread sends mid-step only when records have waited
LIVE_DELAY_NS (the thread kept from the GIL), or a frame's worth waits. The recorder holds a stream
without watermarks back for 50 ms, so both stay below that. Sends from the program's thread were
what the live stream cost a step-like loop; the thread's sweeps, on a fixed period and asleep after
a second with nothing to send, cost it nothing measurable
(bench/capture/shim/live_sweep_bench.py, bench/results/cpu-shim-live-stream-2026-12-01.md).

A signal handler runs in the main thread between any two bytecodes, possibly while that thread
holds the lock half-way through a send: the handler must not send then (the lock is not
reentrant, and a frame may be half written), so it asks `when_free` to run its work as the lock
is let go.
"""
import json
import os
import socket
import struct
import threading
import time

from . import wire


class SendLock:
    """A lock that knows whether the current thread is inside it and runs deferred work on leaving."""

    def __init__(self):
        self._lock = threading.Lock()
        self._inside = threading.local()  # set before acquiring, cleared after releasing: no gap
        self._deferred = []

    def __enter__(self):
        self._inside.yes = True
        self._lock.acquire()

    def __exit__(self, *exc):
        self._lock.release()
        self._inside.yes = False
        while self._deferred and not getattr(self._inside, "yes", False):
            self._deferred.pop(0)()

    def when_free(self, work):
        """Runs work now, or — when this thread is inside the lock — as soon as it leaves it."""
        if getattr(self._inside, "yes", False):
            self._deferred.append(work)
        else:
            work()


LIVE_DELAY_NS = 35_000_000
SWEEP_S = 0.025
_IDLE_SWEEPS = 25  # then the thread sleeps until a record waits


_SEND_BUFFER = 4 << 20


class Channel:
    def __init__(self, path, hello):
        self._lock = SendLock()
        self._live = []  # packed records waiting to go (the live stream), one or more per item
        self._live_bytes = 0
        self._live_since = 0
        self._live_thread = False  # whether the thread will send what waits (not at shutdown)
        self._live_wake = threading.Event()  # the thread, asleep after idle sweeps, wakes for a waiting record
        self._sweeper_idle = False
        self._flusher_pid = None
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(60)  # a stopped recorder must not hang the program for ever
        try:  # room for a few chunks (the kernel caps it): a recorder busy for a moment does not stall the program
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _SEND_BUFFER)
        except OSError:
            pass
        self._sock.connect(path)
        self._names = {}
        self._unsent_names = []
        self._frames = {}
        self._stacks = {}
        self._unsent_frames = []
        self._unsent_stacks = []
        self.lost = False
        self._send(wire.hello(json.dumps(hello).encode()))

    @property
    def open(self):
        return self._sock is not None

    def close(self):
        with self._lock:
            if self._sock is not None:
                try:
                    self._sock.close()
                except OSError:
                    pass
            self._sock = None

    def forget(self):
        """In a forked child: the connection is the parent's; close our copy of it, say nothing."""
        sock, self._sock = self._sock, None
        self._lock = SendLock()
        self._live = []
        self._live_bytes = 0
        self._flusher_pid = None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def _send(self, data):
        if self._sock is None:
            return False
        try:
            self._sock.sendall(data)
            return True
        except OSError:
            self._sock = None  # the program carries on unrecorded; the recorder saw the connection close
            self.lost = True
            return False

    def when_free(self, work):
        """For a signal handler: work that sends runs once this thread is not half-way through a send."""
        self._lock.when_free(work)

    def send_frame(self, frame_type, payload, stream=0):
        with self._lock:
            self._send(b"".join(self._waiting(stream) + [wire.frame(frame_type, payload, stream)]))

    def flush(self):
        """Sends the live records waiting now (at the program's step boundaries)."""
        with self._lock:
            if self._live and self._sock is not None:
                self._send(b"".join(self._waiting(wire.LIVE)))

    def _waiting(self, stream):
        """Under the lock: definitions not sent yet, then the live records waiting, as frames."""
        live, self._live, self._live_bytes = self._live, [], 0
        return self._definitions(stream) + _record_frames(live, wire.LIVE)

    def _flusher(self):
        empty = 0
        while True:
            time.sleep(SWEEP_S)
            if not self._live:
                empty += 1
                if empty >= _IDLE_SWEEPS:
                    self._live_wake.clear()
                    self._sweeper_idle = True
                    if not self._live:  # a record made just now would not have woken it
                        self._live_wake.wait()
                    self._sweeper_idle = False
                    empty = 0
                continue
            empty = 0
            self.flush()

    def meta(self, values):
        self.send_frame(wire.META, json.dumps({k: str(v) for k, v in values.items()}).encode())

    def notice(self, level, message):
        self.send_frame(wire.NOTICE, json.dumps({"level": level, "message": message}).encode())

    def watermark(self, stream, t_ns, idle=False):
        self.send_frame(wire.IDLE if idle else wire.WATERMARK, wire.TIME.pack(t_ns), stream)

    def bye(self, reason):
        self.send_frame(wire.BYE, json.dumps({"reason": reason}).encode())

    # Names (phases, annotations) and stacks are sent once; records then name them by id.
    def name_id(self, text):
        i = self._names.get(text)  # known names (nearly all calls) without the lock
        if i is not None:
            return i
        with self._lock:
            i = self._names.get(text)
            if i is None:
                i = self._names[text] = len(self._names)
                data = text.encode("utf-8", "replace")[:0xFFFF]
                self._unsent_names.append(struct_name(i, data))
            return i

    def frame_id(self, name, file, line):
        with self._lock:
            return self._frame_id((name, file, line))

    def _frame_id(self, f):
        i = self._frames.get(f)
        if i is None:
            i = self._frames[f] = len(self._frames)
            name = str(f[0]).encode("utf-8", "replace")[:0xFFFF]
            file = str(f[1]).encode("utf-8", "replace")[:0xFFFF]
            self._unsent_frames.append(struct.pack("<IiHH", i, int(f[2] or 0) & 0x7FFFFFFF, len(name), len(file)) +
                                       name + file)
        return i

    def stack_id(self, frame_ids):
        """frame_ids: a tuple of frame_id()s, innermost first."""
        key = frame_ids[:wire.MAX_STACK_DEPTH]
        with self._lock:
            s = self._stacks.get(key)
            if s is None:
                s = self._stacks[key] = len(self._stacks)
                self._unsent_stacks.append(struct.pack(f"<IH{len(key)}I", s, len(key), *key))
            return s

    def _definitions(self, stream):
        out = []
        for frame_type, pending in ((wire.NAMES, self._unsent_names), (wire.FRAMES, self._unsent_frames),
                                    (wire.STACKS, self._unsent_stacks)):
            chunk, size = [], 0
            for entry in pending:
                if size + len(entry) > wire.MAX_PAYLOAD // 2 and chunk:
                    out.append(wire.frame(frame_type, b"".join(chunk), stream))
                    chunk, size = [], 0
                chunk.append(entry)
                size += len(entry)
            if chunk:
                out.append(wire.frame(frame_type, b"".join(chunk), stream))
            pending.clear()
        return out

    def records(self, stream, records, watermark=None):
        """records: (t_ns, addr, size, stream, stack, device, action, kind) tuples in time order, of
        no module known to the sender."""
        pack, none, no_pass = wire.RECORD.pack, wire.NO_MODULE, wire.NO_PASS
        with self._lock:
            if self._sock is None:
                return
            packed = [pack(*r, none, no_pass) for r in records]
            if stream == wire.LIVE and watermark is None:
                self._hold_live(packed)
                return
            parts = self._waiting(stream) + _record_frames(packed, stream)
            if watermark is not None:
                parts.append(wire.frame(wire.WATERMARK, wire.TIME.pack(watermark), stream))
            self._send(b"".join(parts))

    def live_packed(self, packed):
        """Live records already packed (wire.RECORD), in time order; an item may hold several."""
        with self._lock:
            if self._sock is not None:
                self._hold_live(packed)

    def _hold_live(self, packed):
        starting = not self._live
        if starting:
            self._live_since = time.monotonic_ns()
            if self._flusher_pid != os.getpid():  # none yet, or the parent's before a fork
                try:
                    threading.Thread(target=self._flusher, name="sawtooth-live", daemon=True).start()
                    self._flusher_pid = os.getpid()
                except RuntimeError:  # at interpreter shutdown: no new threads, so no waiting either
                    pass
            self._live_thread = self._flusher_pid == os.getpid()
        self._live.extend(packed)
        if starting and self._sweeper_idle:  # after extend: the thread checks for records before it sleeps
            self._live_wake.set()
        self._live_bytes += sum(map(len, packed))
        if (not self._live_thread or self._live_bytes >= _FRAME_BYTES or
                time.monotonic_ns() - self._live_since >= LIVE_DELAY_NS):
            self._send(b"".join(self._waiting(wire.LIVE)))

    def record(self, kind, addr=0, size=0, device=0, action=0, range_id=0, module=wire.NO_MODULE, pass_=wire.NO_PASS):
        """One record on the live stream, stamped now."""
        packed = wire.RECORD.pack(time.monotonic_ns(), addr, size, range_id, wire.NO_STACK, device, action, kind, module,
                                  pass_)
        with self._lock:
            if self._sock is not None:
                self._hold_live((packed,))


_FRAME_BYTES = wire.RECORDS_PER_FRAME * wire.RECORD.size


def _record_frames(packed, stream):
    """Packed records (wire.RECORD, one or more per item) as RECORDS frames of at most
    RECORDS_PER_FRAME each."""
    data = b"".join(packed)
    return [wire.frame(wire.RECORDS, data[start:start + _FRAME_BYTES], stream)
            for start in range(0, len(data), _FRAME_BYTES)]


def struct_name(i, data):
    return struct.pack("<IH", i, len(data)) + data
