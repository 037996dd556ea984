#!/usr/bin/env python3
"""The recorder survives anything its recorded program sends (issue 27, item 5). The recorded
program here is a hostile client of the recorder's socket (SAWTOOTH_SOCKET): garbage, a foreign
hello, an oversized frame, unfinished frames held open on many connections, stack amplification
(1 KB of stack definitions naming one 128 KB frame 256 times), a flood behind a stuck watermark,
a flood of notices, of frame text, of meta keys and of streams. After each attack it reads the
recorder's memory (its parent's VmRSS), and at the end its peak (VmHWM). The recorder must end as
the program did (exit 0, nothing aborted), stay within MEMORY_BOUND, echo a bounded number of
notices, and say in the file what it dropped (capture.ingest).

Usage: check_hostile_client.py SAWTOOTH_RECORD SHIM_DIR OUT_DIR"""
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time

record, shim_dir, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
MEMORY_BOUND = 512 << 20
failures = []

CLIENT = textwrap.dedent(r"""
    import json, os, socket, struct, sys, time
    sys.path.insert(0, sys.argv[1])
    from sawtooth_shim import wire

    path = os.environ[wire.SOCKET_ENV]
    report = {"rss": {}}

    def rss(what):
        with open(f"/proc/{os.getppid()}/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        report["rss"][what] = int(fields["VmRSS"].split()[0]) * 1024
        report["hwm"] = int(fields["VmHWM"].split()[0]) * 1024

    def connect(hello=True):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        if hello:
            s.sendall(wire.hello(json.dumps({"role": "hostile", "pid": os.getpid()}).encode()))
        return s

    def settle():
        # The recorder reads everything sent so far before the next attack (a closed connection
        # may refuse the rest: that is the point).
        time.sleep(0.5)

    def safe_send(s, data):
        try:
            s.sendall(data)
            return True
        except OSError:
            return False

    now = time.monotonic_ns()
    rss("start")
    # 1. Garbage, a foreign or older hello, an oversized frame: each connection refused.
    for data in (os.urandom(4096), wire.frame(wire.HELLO, b'{"role": "old"}'),
                 wire.frame(wire.HELLO, b"NOTOURS!" + b"\0" * 4 + b"{}")):
        s = connect(hello=False)
        safe_send(s, data)
        s.close()
    s = connect()
    safe_send(s, wire.HEADER.pack(0xFFFFFFFF, wire.RECORDS, 0, 0) + b"x" * 1024)
    s.close()
    settle()
    rss("garbage")

    # 2. Unfinished frames: 40 connections, each 8 MB - 1 of an 8 MB frame, held open.
    chunk = b"\0" * (1 << 20)
    held = []
    for i in range(40):
        s = connect()
        safe_send(s, wire.HEADER.pack(wire.MAX_PAYLOAD, wire.NAMES, 0, 0))
        for _ in range(7):
            safe_send(s, chunk)
        safe_send(s, chunk[:-1])
        held.append(s)
    settle()
    rss("unfinished")
    for s in held:
        s.close()

    # 3. Stack amplification: one frame of 64 KB + 64 KB of text, 400 stacks naming it 256 times
    # (400 KB of definitions), and a record on each stack.
    s = connect()
    name = b"n" * 0xFFFF
    frame = struct.pack("<IiHH", 0, 1, len(name), len(name)) + name + name
    stacks = b"".join(struct.pack("<IH", i, 256) + struct.pack("<256I", *([0] * 256)) for i in range(400))
    records = b"".join(wire.RECORD.pack(now + i, 0x1000 + 64 * i, 64, 0, i, -1, wire.ALLOC, wire.ALLOCATOR,
                                        wire.NO_MODULE, wire.NO_PASS)
                       for i in range(400))
    safe_send(s, wire.frame(wire.FRAMES, frame) + wire.frame(wire.STACKS, stacks) + wire.frame(wire.RECORDS, records, 3)
              + wire.frame(wire.IDLE, wire.TIME.pack(now + 1000), 3))
    settle()
    rss("stacks")

    # 4. A flood behind a stuck watermark: stream 1 promises nothing after t0+1 and never moves,
    # stream 2 sends 4 M tags.
    safe_send(s, wire.frame(wire.WATERMARK, wire.TIME.pack(now + 1), 1))
    batch = b"".join(wire.RECORD.pack(now + 2000 + i, 0x9000, 0, 0, wire.NO_STACK, -1, wire.PARAMETER, wire.TAG,
                                      wire.NO_MODULE, wire.NO_PASS)
                     for i in range(wire.RECORDS_PER_FRAME))
    for i in range(4_000_000 // wire.RECORDS_PER_FRAME):
        safe_send(s, wire.frame(wire.RECORDS, batch, 2))
    settle()
    rss("stuck watermark")

    # 5. Notices, frame text, meta keys, streams.
    notice = wire.frame(wire.NOTICE, json.dumps({"level": "warning", "message": "n" * 1000}).encode())
    safe_send(s, notice * 5000)
    settle()
    rss("notices")
    text = b"t" * 4096
    per = (4 << 20) // (12 + 2 * len(text))
    entries = [struct.pack("<IiHH", 1000 + i, i, len(text), len(text)) + text + text for i in range(20000)]
    for start in range(0, len(entries), per):
        safe_send(s, wire.frame(wire.FRAMES, b"".join(entries[start:start + per])))
    keys = {f"key{i}": "v" * 100 for i in range(20000)}
    safe_send(s, wire.frame(wire.META, json.dumps(keys).encode()))
    for stream in range(256):
        safe_send(s, wire.frame(wire.WATERMARK, wire.TIME.pack(now), stream))
    settle()
    rss("text, meta, streams")
    s.close()
    with open(sys.argv[2], "w") as f:
        json.dump(report, f)
    print("hostile client done")
""")

client = os.path.join(out, "hostile.py")
with open(client, "w") as f:
    f.write(CLIENT)
report_path = os.path.join(out, "report.json")
trace = os.path.join(out, "hostile.sawtooth")
for p in (report_path, trace, trace + "-wal", trace + "-shm"):
    if os.path.exists(p):
        os.remove(p)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


start = time.time()
r = subprocess.run([record, "--force", "--out", trace, "--", sys.executable, "-S", client, shim_dir, report_path],
                   capture_output=True, text=True, timeout=600)
print(f"recorder: exit {r.returncode} in {time.time() - start:.1f} s, {len(r.stderr.splitlines())} stderr lines")
check(r.returncode == 0, f"the recorder ended with {r.returncode}, not as its program did (0): {r.stderr[-2000:]}")
check("hostile client done" in r.stdout, f"the client did not finish: {r.stdout[-500:]}")
for word in ("terminate called", "Aborted", "bad_alloc", "Segmentation"):
    check(word not in r.stderr, f"the recorder's stderr says {word!r}")
echoed = sum("nnnnnnnnnn" in line for line in r.stderr.splitlines())
check(echoed <= 25, f"{echoed} notices echoed on stderr (at most 20 and a line that says the rest are in the file)")
if check(os.path.exists(report_path), "no report from the client"):
    with open(report_path) as f:
        report = json.load(f)
    for what, value in report["rss"].items():
        print(f"  recorder RSS after {what:22s} {value / 2**20:8.1f} MiB")
    print(f"  recorder peak RSS (VmHWM)          {report['hwm'] / 2**20:8.1f} MiB (bound {MEMORY_BOUND >> 20} MiB)")
    check(report["hwm"] <= MEMORY_BOUND, f"the recorder's peak memory {report['hwm'] >> 20} MiB is over the bound")
if check(os.path.exists(trace), "no trace"):
    db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    db.close()
    ingest = json.loads(meta.get("capture.ingest", "{}"))
    print("  capture.ingest:", ingest)
    for key in ("forced_releases", "notices_dropped", "meta_dropped", "frames_dropped"):
        check(ingest.get(key, 0) > 0, f"the file does not count what it dropped: {key} = {ingest.get(key)}")
    check(len(meta.get("notices", "")) <= 200 * 2100, f"notices meta of {len(meta.get('notices', ''))} bytes")
    check(meta.get("complete") == "false" and meta.get("incomplete_reason"),
          f"the hostile connections never said goodbye: {meta.get('complete')} {meta.get('incomplete_reason')}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("the recorder survived its hostile program, within its memory bound")
