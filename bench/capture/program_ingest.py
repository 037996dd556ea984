#!/usr/bin/env python3
"""How fast sawtooth-record takes in a recorded program's stream: this script plays a program
whose allocator tracker sends N allocator events (alloc / free_requested / free_completed, with
Python stacks drawn from a set of distinct ones), as fast as it can, on one connection, then says
goodbye. Run it under the recorder; it prints what it sent and how fast, and the recorder's file
must then hold every event.

  sawtooth-record --out ingest.sawtooth -- python3 bench/capture/program_ingest.py 1000000 [STACKS]
"""
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "capture", "shim"))
from sawtooth_shim import wire  # noqa: E402

n = int(sys.argv[1])
distinct_stacks = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(os.environ["SAWTOOTH_SOCKET"])
sock.sendall(wire.hello(json.dumps({"role": "tracker", "pid": os.getpid()}).encode()))

# Stacks of 20 frames from a pool of 200 frames, as deep Python call chains look.
def frame_entry(i):
    name, file = f"func{i:04d}".encode(), f"file{i:04d}.py".encode()
    return struct.pack("<IiHH", i, i, len(name), len(file)) + name + file


frames = b"".join(frame_entry(i) for i in range(200))
stacks = b"".join(struct.pack("<IH20I", s, 20, *[(s * 7 + k) % 200 for k in range(20)])
                  for s in range(distinct_stacks))
sock.sendall(wire.frame(wire.FRAMES, frames) + wire.frame(wire.STACKS, stacks) +
             wire.frame(wire.WATERMARK, wire.TIME.pack(time.monotonic_ns())))

def pack(*fields):
    return wire.RECORD.pack(*fields, wire.NO_MODULE, wire.NO_PASS)


batch = 30_000  # one drain of the tracker's thread at ~600 k events/s
start = time.monotonic()
sent = 0
while sent < n:
    t0 = time.monotonic_ns()
    count = min(batch, n - sent)
    records = []
    for i in range(sent, sent + count, 3):
        addr = 0x10000000 + (i % 4096) * 512
        stack = i % distinct_stacks
        records.append(pack(t0, addr, 512, 0, stack, 0, 0, wire.ALLOCATOR))
        records.append(pack(t0 + 1, addr, 512, 0, wire.NO_STACK, 0, 1, wire.ALLOCATOR))
        records.append(pack(t0 + 2, addr, 512, 0, wire.NO_STACK, 0, 2, wire.ALLOCATOR))
    payload = b"".join(records)
    sock.sendall(wire.frame(wire.RECORDS, payload) + wire.frame(wire.WATERMARK, wire.TIME.pack(t0 + 3)))
    sent += len(records)
elapsed = time.monotonic() - start
sock.sendall(wire.frame(wire.BYE, json.dumps({"reason": "exit", "dropped": 0, "events": sent}).encode()))
sock.close()
print(json.dumps({"events_sent": sent, "send_seconds": round(elapsed, 3), "events_per_second": round(sent / elapsed)}))
