#!/usr/bin/env python3
"""Writes the regression corpus of hostile and broken trace files: one file (or one folder, for
SQLite files with their -wal/-shm) per class of attack or accident found against Sawtooth's
readers (issue 10), each made here from its description rather than kept as a binary. Beside them,
manifest.json says what each must give: "refused" (exit code 1 and a message containing `message`),
"flagged" (exit code 0 and the anomaly kind or warning named), or "ok".
tests/tools/check_hostile_corpus.py runs `sawtooth-trace info --json` on each under a 1 GB address
space limit and a 10 s timeout, and checks that nothing was written beside the input.

Usage: make_hostile_corpus.py SAMPLES_DIR OUT_DIR     (SAMPLES_DIR: resources/samples)
Python standard library only.
"""
import gzip
import json
import os
import pickle
import shutil
import sqlite3
import struct
import subprocess
import sys

MANIFEST = []


def expect(path, outcome, message=None, anomaly=None, warning=None, label=None):
    entry = {"file": path, "expect": outcome}
    if message:
        entry["message"] = message
    if anomaly:
        entry["anomaly"] = anomaly
    if warning:
        entry["warning"] = warning
    if label:
        entry["label"] = label
    MANIFEST.append(entry)


def event(action, addr, size, time_us, frames=()):
    return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": time_us,
            "compile_context": "N/A", "user_metadata": "", "frames": list(frames)}


def snapshot(events, segments=None, **extra):
    snap = {"segments": segments if segments is not None else [], "device_traces": [events],
            "allocator_settings": {}, "external_annotations": []}
    snap.update(extra)
    return snap


def write(out, name, data):
    path = os.path.join(out, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return os.path.relpath(path, out)


# ---- what the GUI draws (issue 28, item 3): inside the readers' limits, and read here in O(n log n);
# tests/tools/check_export_png.py renders the same shapes with `sawtooth --export-png`.

def drawing_bounds(out):
    # 200,000 annotations open at once, each of its own name, closed in reverse: pairing each END
    # with its START by a search through the open ones was quadratic.
    n = 200_000
    events = ([event("alloc", 4096 * (k + 1), 1 << 20, 10 + k) for k in range(100)] +
              [event("free_completed", 4096 * (k + 1), 1 << 20, 1000 + k) for k in range(100)])
    annotations = ([{"device": 0, "name": f"annotation {i}", "stage": "START", "time_us": i % 1000} for i in range(n)] +
                   [{"device": 0, "name": f"annotation {i}", "stage": "END", "time_us": 2000 - i % 1000} for i in range(n)])
    expect(write(out, "drawing/annotations_200k_open.pickle",
                 pickle.dumps(snapshot(events, external_annotations=annotations), protocol=4)), "ok", label="events:200")
    # Exactly 4,096 devices (the readers' limit), two events each.
    traces = [[event("alloc", 4096, 1 << (10 + d % 20), 1 + d), event("free_completed", 4096, 1 << (10 + d % 20), 2 + d)]
              for d in range(4096)]
    snap = snapshot([])
    snap["device_traces"] = traces
    expect(write(out, "drawing/devices_4096.pickle", pickle.dumps(snap, protocol=4)), "ok", label="events:8192")


# ---- pickles: amplification, nonsense values, odd sequences, structure bombs

def pickles(out):
    # Memory amplification: 100,000 distinct frames sharing one 64 KB name through the memo, on one
    # event. The name must cost its bytes once, not once per frame (6.5 GB).
    long_name = "x" * 65536
    frames = [{"name": long_name, "filename": "model.py", "line": i} for i in range(100_000)]
    data = gzip.compress(pickle.dumps(snapshot([event("alloc", 4096, 512, 1, frames)]), protocol=4), 9)
    expect(write(out, "amplification/shared_name_100k_frames.pickle.gz", data), "ok")
    # The same with 1,000 events each listing all of them (a stack of 100,000 frames, interned once).
    many = [event("alloc", 4096 * (k + 1), 512, k + 1, frames) for k in range(50)]
    expect(write(out, "amplification/shared_frames_50_events.pickle", pickle.dumps(snapshot(many), protocol=4)), "ok")

    # Values that cannot be: refused with the event's place.
    cases = {
        "negative_size": ([event("alloc", 4096, -5, 1)], "device_traces[0][0]: size -5 is negative"),
        "size_2_64_minus_1": ([event("alloc", 4096, 2**64 - 1, 1)], "size 18446744073709551615 does not fit in 64 bits"),
        "size_2_65": ([event("alloc", 4096, 2**65, 1)], "size 36893488147419103232 does not fit in 64 bits"),
        "sum_past_2_63": ([event("alloc", 4096 * (k + 1), 2**62, k + 1) for k in range(3)],
                          "the allocated bytes on cuda:0 pass 2^63"),
        "time_as_string": ([event("alloc", 4096, 16, "12")], "'time_us' is a str, not an integer"),
        "time_as_none": ([event("alloc", 4096, 16, None)], "'time_us' is None, not an integer"),
        "addr_negative": ([event("alloc", -4096, 16, 1)], "addr -4096 is not a 64-bit unsigned value"),
    }
    for name, (events, message) in cases.items():
        expect(write(out, f"values/{name}.pickle", pickle.dumps(snapshot(events), protocol=4)), "refused", message)
    segment = {"device": -7, "address": 0, "total_size": 2 << 20, "blocks": []}
    expect(write(out, "values/segment_device_minus_7.pickle",
                 pickle.dumps(snapshot([event("alloc", 4096, 16, 1)], [segment]), protocol=4)),
           "refused", "segments[0]: device -7 is not a CUDA device")

    # Sequences PyTorch can produce in odd cases: kept, and flagged.
    odd = {
        "free_without_alloc": ([event("free_requested", 8192, 16, 1), event("free_completed", 8192, 16, 2)],
                               "free_without_alloc"),
        "double_free": ([event("alloc", 4096, 16, 1), event("free_completed", 4096, 16, 2),
                         event("free_completed", 4096, 16, 3)], "double_free"),
        "double_alloc": ([event("alloc", 4096, 16, 1), event("alloc", 4096, 16, 2)], "double_alloc"),
        "time_backwards": ([event("alloc", 4096, 16, 10), event("alloc", 8192, 16, 5)], "time_backwards"),
    }
    for name, (events, kind) in odd.items():
        expect(write(out, f"sequences/{name}.pickle", pickle.dumps(snapshot(events), protocol=4)), "flagged",
               anomaly=kind)

    # Structure bombs: nesting, a memo list listed a million times, a string that claims more
    # bytes than there are.
    expect(write(out, "structure/deep_marks.pickle", b"\x80\x02" + b"(" * 100_000 + b"N."), "refused",
           "nested MARKs (the depth limit")
    # segments = [S] * 200000 where S = a dict whose blocks list holds 200000 references to one
    # block: 4 * 10^10 block visits from 2 MB.
    body = bytearray(b"\x80\x04}\x94(\x8c\x08segments\x94]\x94(")
    block = b"}\x94(\x8c\x05state\x94\x8c\x10active_allocated\x94\x8c\x0erequested_size\x94K\x10u"
    seg_head = b"}\x94(\x8c\x06device\x94K\x00\x8c\x06blocks\x94]\x94(" + block
    body += seg_head
    # memo: 0 root, 1 'segments', 2 list, 3 seg dict, 4 'device', 5 'blocks', 6 blocks list,
    # 7 block dict, 8 'state', 9 'active_allocated', 10 'requested_size'
    body += b"h\x07" * 199_999 + b"eu"
    body += b"h\x03" * 199_999 + b"eu."
    expect(write(out, "structure/memo_bomb.pickle", bytes(body)), "refused", "refers back to the same data")
    expect(write(out, "structure/string_claims_a_terabyte.pickle", b"\x80\x04\x8d" + struct.pack("<Q", 2**40) + b"abc."),
           "refused", "says 1099511627776 bytes follow")
    expect(write(out, "structure/global_reduce.pickle", b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03."),
           "refused", "opcode GLOBAL (0x63) would import or call Python code")


# ---- gzip bombs

def gzip_stream(path, head, zero_bytes):
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as z:
        z.write(head)
        chunk = bytes(1 << 20)
        for _ in range(zero_bytes >> 20):
            z.write(chunk)


def gzip_bombs(out):
    os.makedirs(os.path.join(out, "gzip"), exist_ok=True)
    # 1 GiB of zeros: not a trace, refused on its first bytes.
    p = os.path.join(out, "gzip", "zeros_1gib.pickle.gz")
    gzip_stream(p, b"", 1 << 30)
    expect(os.path.relpath(p, out), "refused", "what it holds is not a PyTorch memory snapshot")
    # A pickle's first bytes, then a 512 MiB BINBYTES8 of zeros: refused at the decompression limit.
    p = os.path.join(out, "gzip", "pickle_head_then_512mib.pickle.gz")
    gzip_stream(p, b"\x80\x04\x8e" + struct.pack("<Q", 512 << 20), 512 << 20)
    expect(os.path.relpath(p, out), "refused", "decompresses to more than")
    # JSON that starts like a profiler trace and goes on for 512 MiB of spaces.
    p = os.path.join(out, "gzip", "json_then_512mib.json.gz")
    with open(p, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as z:
        z.write(b'{"traceEvents": [')
        chunk = b" " * (1 << 20)
        for _ in range(512):
            z.write(chunk)
    expect(os.path.relpath(p, out), "refused", "decompresses to more than")


# ---- .sawtooth (SQLite) files

def sqlite_case(out, name, sample, mutate, outcome, message=None, warning=None, label=None, keep_journal=False):
    folder = os.path.join(out, "sqlite", name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "trace.sawtooth")
    shutil.copy(sample, path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=DELETE")
    mutate(con)
    con.commit()
    con.close()
    expect(os.path.relpath(path, out), outcome, message, warning=warning, label=label)
    return path


def sqlite_files(out, samples):
    sample = os.path.join(samples, "anatomy.sawtooth")

    def view_in_place_of(table, body):
        def mutate(con):
            con.execute("DROP VIEW IF EXISTS events_named")
            con.execute(f"DROP TABLE {table}")
            con.execute(f"CREATE VIEW {table} AS {body}")
        return mutate

    recursive = ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                 "SELECT n AS seq, n AS t_ns, 0 AS device, 0 AS source, 0 AS action, 0 AS addr, 0 AS size, "
                 "0 AS stream, 0 AS category, NULL AS phase, NULL AS stack, NULL AS run FROM r")
    sqlite_case(out, "recursive_view_events", sample, view_in_place_of("events", recursive), "refused",
                "'events' is a view, not a table")
    sqlite_case(out, "recursive_view_meta", sample,
                view_in_place_of("meta", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                                         "SELECT 'k' || n AS key, 'v' AS value FROM r"),
                "refused", "'meta' is a view, not a table")
    sqlite_case(out, "zeroblob_view", sample,
                view_in_place_of("meta", "SELECT 'format_version' AS key, zeroblob(2000000000) AS value"),
                "refused", "'meta' is a view, not a table")

    def many_devices(con):
        con.executemany("INSERT INTO devices VALUES(?, 'gpu', 0, 0, 0)", [(d,) for d in range(100_000)])
    sqlite_case(out, "devices_100k", sample, many_devices, "refused", "more than 4096 devices")

    def device(value):
        def mutate(con):
            con.execute("UPDATE events SET device = ? WHERE seq = 5", (value,))
            con.execute("INSERT OR REPLACE INTO devices VALUES(?, 'far', 0, 0, 0)", (value,))
        return mutate
    sqlite_case(out, "device_40000", sample, device(40000), "ok", label="cuda:40000")
    sqlite_case(out, "device_1e9", sample, device(10**9), "ok", label="cuda:1000000000")
    sqlite_case(out, "device_minus_7", sample, lambda con: con.execute("UPDATE events SET device = -7 WHERE seq = 5"),
                "refused", "event 5: device -7 is not a device")
    sqlite_case(out, "device_past_32_bits", sample,
                lambda con: con.execute("UPDATE events SET device = 5000000000 WHERE seq = 5"),
                "refused", "event 5: device 5000000000 is not a device")
    sqlite_case(out, "size_text", sample, lambda con: con.execute("UPDATE events SET size = 'abc' WHERE seq = 7"),
                "refused", "event 7: 'size' is text")
    sqlite_case(out, "time_blob", sample, lambda con: con.execute("UPDATE events SET t_ns = x'0102' WHERE seq = 9"),
                "refused", "event 9: 't_ns' is a blob")
    sqlite_case(out, "device_text", sample, lambda con: con.execute("UPDATE events SET device = 'gpu' WHERE seq = 3"),
                "refused", "event 3: 'device' is text")
    sqlite_case(out, "size_negative", sample, lambda con: con.execute("UPDATE events SET size = -5 WHERE seq = 4"),
                "refused", "event 4 (")

    def retype(con):
        con.execute("DROP VIEW IF EXISTS events_named")
        con.execute("ALTER TABLE events RENAME TO old_events")
        con.execute("CREATE TABLE events(seq INTEGER PRIMARY KEY, t_ns INTEGER NOT NULL, device INTEGER NOT NULL, "
                    "source INTEGER NOT NULL, action INTEGER NOT NULL, addr INTEGER, size TEXT, stream INTEGER, "
                    "category INTEGER, phase INTEGER, stack INTEGER, run INTEGER)")
        con.execute("INSERT INTO events SELECT * FROM old_events")
        con.execute("DROP TABLE old_events")
    sqlite_case(out, "column_declared_text", sample, retype, "refused", "column 7 is 'size TEXT'")
    sqlite_case(out, "version_1_5", sample,
                lambda con: con.execute("UPDATE meta SET value = '1.5' WHERE key = 'format_version'"),
                "refused", "format_version '1.5' is not a whole number")
    sqlite_case(out, "version_99", sample,
                lambda con: con.execute("UPDATE meta SET value = '99' WHERE key = 'format_version'"),
                "refused", "Update Sawtooth to open it")

    # Truncated: SQLite's own diagnosis comes through.
    folder = os.path.join(out, "sqlite", "truncated")
    os.makedirs(folder, exist_ok=True)
    with open(sample, "rb") as f:
        data = f.read()
    path = os.path.join(folder, "trace.sawtooth")
    with open(path, "wb") as f:
        f.write(data[: len(data) // 3])
    expect(os.path.relpath(path, out), "refused", "database disk image is malformed")

    wal_cases(out, sample)


WRITER = r'''
import os, sqlite3, sys
path, stop = sys.argv[1], sys.argv[2]
con = sqlite3.connect(path, isolation_level=None)
con.execute("PRAGMA journal_mode=WAL")
con.execute("PRAGMA wal_autocheckpoint=0")
con.execute("BEGIN")
con.execute("UPDATE meta SET value = 'wal-workload' WHERE key = 'workload'")
n = con.execute("SELECT max(seq) FROM events").fetchone()[0] + 1
con.execute("INSERT INTO events SELECT seq + ?, t_ns, device, source, action, addr, size, stream, category, phase, "
            "stack, run FROM events", (n,))
con.execute("COMMIT")
os._exit(0)  # killed: the -wal and -shm stay, nothing is checkpointed
'''


def wal_cases(out, sample):
    # A recording killed mid-run: the second half of its events is in the -wal. With the -wal and
    # -shm beside it, all of it reads and nothing new appears; with only the -wal, the reader works
    # on a private copy; without the -wal, it says what is missing.
    for name, keep in (("wal_with_shm", ("-wal", "-shm")), ("wal_without_shm", ("-wal",)), ("wal_missing", ())):
        folder = os.path.join(out, "sqlite", name)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "trace.sawtooth")
        shutil.copy(sample, path)
        subprocess.run([sys.executable, "-c", WRITER, path, "kill"], check=True)
        for suffix in ("-wal", "-shm"):
            if suffix not in keep and os.path.exists(path + suffix):
                os.remove(path + suffix)
        if name == "wal_missing":
            expect(os.path.relpath(path, out), "flagged",
                   warning="the last part of it is in trace.sawtooth-wal, which is not here")
        else:
            expect(os.path.relpath(path, out), "ok", label="events:21372")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    samples, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    pickles(out)
    drawing_bounds(out)
    gzip_bombs(out)
    sqlite_files(out, samples)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(MANIFEST, f, indent=1)
    print(f"{out}: {len(MANIFEST)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
