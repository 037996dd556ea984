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


def expect(path, outcome, message=None, anomaly=None, warning=None, label=None, args=None):
    entry = {"file": path, "expect": outcome}
    if args:
        entry["args"] = args  # the command, with {file} for the path (default: info --json {file})
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
    # Converting either would write the name once per frame (6.5 GB of frames table): refused by the
    # amplification limit on what is written, before anything is ({out}: nothing may be left there).
    for name in ("amplification/shared_name_100k_frames.pickle.gz", "amplification/shared_frames_50_events.pickle"):
        expect(name, "refused", message="bytes of frame names and files from", args=["convert", "{file}", "{out}"])

    # Values that cannot be: refused with the event's place.
    cases = {
        "negative_size": ([event("alloc", 4096, -5, 1)], "device_traces[0][0]: size -5 is negative"),
        "size_2_64_minus_1": ([event("alloc", 4096, 2**64 - 1, 1)], "size 18446744073709551615 does not fit in 64 bits"),
        "size_2_65": ([event("alloc", 4096, 2**65, 1)], "size 36893488147419103232 does not fit in 64 bits"),
        "sum_past_2_63": ([event("alloc", 4096 * (k + 1), 2**50, k + 1) for k in range(8200)],
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


# ---- colliding keys (issue 28): keys built to share one hash under the fixed hashes the readers
# used before (an inversion of each, below). A reader must stay linear: its tables' hash is keyed.

MASK64 = (1 << 64) - 1


def _unshift(y, s):
    x = y
    for _ in range(64 // s + 1):
        x = y ^ (x >> s)
    return x


def _mix(v):  # the old core/util/flat_index.h hashBytes' mixer
    v ^= v >> 33
    v = v * 0xC4CEB9FE1A85EC53 & MASK64
    return v ^ (v >> 29)


def _unmix(v):
    v = _unshift(v, 29)
    v = v * pow(0xC4CEB9FE1A85EC53, -1, 1 << 64) & MASK64
    return _unshift(v, 33)


def colliding_frame_lines(name_id, file_id, n):
    """Lines whose frames (name_id, file_id, line) all had the same low 32 bits under the old
    hashBytes of the frame's two words, so every one landed on one probe sequence."""
    c1, c2 = 0x9FB21C651E98DF25, 0x94D049BB133111EB
    h0 = 0x9E3779B97F4A7C15 ^ (16 * 0xFF51AFD7ED558CCD & MASK64)
    h1 = _mix(h0 ^ (((name_id << 32) | file_id) * c1 & MASK64)) * c2 & MASK64
    c1_inv, c2_inv = pow(c1, -1, 1 << 64), pow(c2, -1, 1 << 64)
    lines, k = [], 1
    while len(lines) < n:
        h2 = _unmix(_unmix((k << 32) | 0x5A5A5A5A))  # the two final mixes undone
        line = ((_unmix(h2 * c2_inv & MASK64) ^ h1) * c1_inv) & MASK64
        k += 1
        if line < 1 << 63:
            lines.append(line)
    return lines


def colliding_addresses(n):
    """Addresses of device 0's allocator blocks that had the same low 32 bits under the old address
    table's hash (core/model/trace_checks.cpp)."""
    mul_inv = pow(0xBF58476D1CE4E5B9, -1, 1 << 64)
    out, k = [], 1
    while len(out) < n:
        v = _unshift((k << 32) | 0x00A5A500, 29)
        out.append(_unshift(v * mul_inv & MASK64, 31))
        k += 1
    return out


def _varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _pb_int(field, v):
    return _varint(field << 3) + _varint(v & MASK64)


def _pb_bytes(field, data):
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _pb_packed(field, values):
    return _pb_bytes(field, b"".join(_varint(v & MASK64) for v in values))


def pprof(strings, samples, locations=(), functions=()):
    """A pprof Profile as jax.profiler.save_device_memory_profile writes one. strings[1:5] must be
    space, bytes, allocations, count; samples: (location ids, [count, bytes], [(key, str)]);
    locations: (id, [(function id, line)]); functions: (id, name, file)."""
    out = bytearray()
    out += _pb_bytes(1, _pb_int(1, 3) + _pb_int(2, 4))  # allocations/count
    out += _pb_bytes(1, _pb_int(1, 1) + _pb_int(2, 2))  # space/bytes
    for locs, values, labels in samples:
        body = _pb_packed(1, locs) + _pb_packed(2, values)
        for key, value in labels:
            body += _pb_bytes(3, _pb_int(1, key) + _pb_int(2, value))
        out += _pb_bytes(2, body)
    for loc_id, lines in locations:
        out += _pb_bytes(4, _pb_int(1, loc_id) + b"".join(_pb_bytes(4, _pb_int(1, f) + _pb_int(2, l)) for f, l in lines))
    for fn_id, name, file in functions:
        out += _pb_bytes(5, _pb_int(1, fn_id) + _pb_int(2, name) + _pb_int(4, file))
    for text in strings:
        out += _pb_bytes(6, text.encode())
    return bytes(out)


PPROF_STRINGS = ["", "space", "bytes", "allocations", "count", "kind", "buffer", "device", "cuda:0", "f", "x.py"]


def collisions(out, samples):
    n = 100_000
    # The first frame's name and file are the first strings interned: ids 0 and 1 in every reader.
    lines = colliding_frame_lines(0, 1, n)
    frames = [{"name": "f", "filename": "x.py", "line": line} for line in lines]
    expect(write(out, "collisions/frame_lines_100k.pickle",
                 pickle.dumps(snapshot([event("alloc", 4096, 512, 1, frames)]), protocol=4)), "ok", label="events:1")

    profile = pprof(PPROF_STRINGS, [(list(range(1, n + 1)), [1, 512], [(5, 6), (7, 8)])],
                    [(i + 1, [(1, line)]) for i, line in enumerate(lines)], [(1, 9, 10)])
    expect(write(out, "collisions/frame_lines_100k.prof", profile), "ok", label="events:1")

    folder = os.path.join(out, "collisions", "frame_lines_100k")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "trace.sawtooth")
    shutil.copy(os.path.join(samples, "anatomy.sawtooth"), path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("UPDATE events SET stack = NULL")
    con.execute("DELETE FROM stacks")
    con.execute("DELETE FROM frames")
    con.executemany("INSERT INTO frames(id, name, file, line) VALUES(?, 'f', 'x.py', ?)", enumerate(lines))
    con.executemany("INSERT INTO stacks(stack_id, depth, frame_id) VALUES(0, ?, ?)", ((i, i) for i in range(n)))
    con.execute("UPDATE events SET stack = 0 WHERE seq = 1")
    con.commit()
    con.close()
    expect(os.path.relpath(path, out), "ok", label="events:10686")

    events = [event("alloc", addr, 512, k + 1) for k, addr in enumerate(colliding_addresses(150_000))]
    expect(write(out, "collisions/addresses_150k.pickle", pickle.dumps(snapshot(events), protocol=4)), "ok",
           label="events:150000")
    # std::hash of an integer is the integer: 170,000 multiples of 172,933 (libstdc++'s bucket count
    # from 85,229 entries on) share one bucket of every address-keyed std::unordered_map. `diff`
    # and `ladder` follow the blocks alive in such maps (more than 120 s and 64 s before).
    events = [event("alloc", 172_933 * (k + 1), 512, k + 1) for k in range(170_000)]
    name = write(out, "collisions/addresses_multiple_of_bucket_count.pickle", pickle.dumps(snapshot(events), protocol=4))
    expect(name, "ok", args=["diff", "{file}", "{file}"])
    expect(name, "ok", args=["ladder", "{file}"])


# ---- amplification (issue 28): structures that make a few bytes cost much, counted against the
# budget and held to the amplification limit (events and stack frames per byte of input).

def amplification(out):
    # 125 bytes claiming 2^24 buffers: 16.7 M events and 1.3 GB.
    profile = pprof(PPROF_STRINGS, [([], [1 << 24, (1 << 24) * 512], [(5, 6), (7, 8)])])
    expect(write(out, "amplification/pprof_2_24_buffers.prof", profile), "refused",
           "1048577 events from 114 bytes of input: more than 16 a byte past the first 1048576 (the amplification limit")
    # A location of 2,000 lines listed 50,000 times by each of 20 samples: 100 M frames a stack from
    # 1 MB (84 s and 3.8 GB, then out of memory).
    samples = [([1] * 50_000, [1, 512], [(5, 6), (7, 8)]) for _ in range(20)]
    profile = pprof(PPROF_STRINGS, samples, [(1, [(1, line) for line in range(1, 2001)])], [(1, 9, 10)])
    expect(write(out, "amplification/pprof_location_2000_lines_listed_1m_times.prof", profile), "refused",
           "stack frames from")
    # One string of 512 KiB that 20,000 labels and 100,000 comments name: read once, not once each.
    strings = PPROF_STRINGS + ["L" * (512 << 10)]
    long_id = len(strings) - 1
    samples = [([], [1, 512], [(5, 6), (7, 8)] + [(long_id, long_id)] * 20_000)]
    profile = pprof(strings, samples) + _pb_packed(13, [long_id] * 100_000)
    expect(write(out, "amplification/pprof_long_string_named_everywhere.prof", profile), "ok", label="events:1")
    # A 20 KB pickle whose PUTs leave gaps of 2^20 memo slots: 16 MB of memo each, up to the
    # memory limit (¾ of the RAM), before this.
    body = bytearray(b"\x80\x04")
    k = 0
    while len(body) < 20_000:
        k += 1
        body += b"N" + b"r" + struct.pack("<I", k << 20)
    expect(write(out, "amplification/memo_put_every_2_20_slots.pickle", bytes(body) + b"."), "refused",
           "no pickle stores that many values in its first 8 bytes")


# ---- wrong answers (issue 28): values that were read as something else, silently.

def profiler_trace(memory_args, ts=1.0):
    event = {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
             "args": {"Addr": 4096, "Bytes": 512, "Total Reserved": 0, "Total Allocated": 512, "Device Id": 0,
                      "Device Type": 1}}
    event["args"].update(memory_args)
    return {"traceEvents": [event]}


def wrong_answers(out, samples):
    expect(write(out, "values/size_2_63_minus_1.pickle",
                 pickle.dumps(snapshot([event("alloc", 4096, 2**63 - 1, 1)]), protocol=4)),
           "refused", "size 9223372036854775807 is more than any device holds (the size limit")
    # JSON numbers that do not fit were read as 0, NaN and Infinity as numbers, 1e300 as -2^63.
    cases = {
        "bytes_1e300": ('{"Bytes": 1e300}', "args.Bytes is 1e300, not a whole number of bytes"),
        "bytes_2_70": ('{"Bytes": 1180591620717411303424}', "args.Bytes is 1180591620717411303424, not a whole"),
        "bytes_fraction": ('{"Bytes": 512.5}', "args.Bytes is 512.5, not a whole number"),
        "bytes_nan_quoted": ('{"Bytes": "NaN"}', 'args.Bytes is "NaN", not a whole number'),
        "addr_negative": ('{"Addr": -4096}', "args.Addr is -4096, not an address"),
        "ts_infinity_quoted": (None, 'ts is "Infinity", not a finite number'),
    }
    for name, (args, message) in cases.items():
        doc = profiler_trace({}, ts="Infinity") if args is None else profiler_trace({})
        text = json.dumps(doc)
        if args is not None:
            key = list(json.loads(args))[0]
            raw = args[args.index(":") + 1:-1].strip()
            text = text.replace(f'"{key}": {json.dumps(doc["traceEvents"][0]["args"][key])}', f'"{key}": {raw}')
        expect(write(out, f"json/{name}.json", text.encode()), "refused", message)
    expect(write(out, "json/bare_nan_literal.json", json.dumps(profiler_trace({})).replace('"ts": 1.0', '"ts": NaN').encode()),
           "refused", "ts is NaN, not a finite number")
    # Segments that hold less than the trace leaves allocated: the bytes allocated before the
    # trace came out negative, and info said "peak allocated 0 B" beside a peak in blocks.
    segment = {"device": 0, "address": 1 << 32, "total_size": 2 << 20, "stream": 0, "segment_type": "large",
               "allocated_size": 0, "active_size": 0, "requested_size": 0, "blocks": [
                   {"address": 1 << 32, "size": 2 << 20, "requested_size": 0, "state": "inactive", "frames": []}]}
    events = [event("alloc", (1 << 32) + 512 * k, 512, k + 1) for k in range(8)]
    expect(write(out, "values/segments_hold_less_than_the_trace.pickle", pickle.dumps(snapshot(events, [segment]), protocol=4)),
           "flagged", warning="cuda:0: the bytes allocated before the trace began come out negative (-4.1 kB")
    # Names with terminal escapes and newlines forge lines of `info`'s output.
    folder = os.path.join(out, "text", "escapes_in_names")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "trace.sawtooth")
    shutil.copy(os.path.join(samples, "anatomy.sawtooth"), path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=DELETE")
    forged = "\x1b[2J\x1b[H\nevents   999999\n\x9b31m\u202ecod.exe"
    con.execute("UPDATE runs SET name = ?", ("adam" + forged,))
    con.execute("INSERT OR REPLACE INTO devices VALUES(0, ?, 0, 0, 0)", ("H200" + forged,))
    con.commit()
    con.close()
    expect(os.path.relpath(path, out), "ok", args=["info", "{file}"], label="printable:events   999999")


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
    # -shm beside it, all of it reads and nothing beside it is written (the checker traces the
    # system calls); with only the -wal, the WAL index is kept in memory; without the -wal, the
    # reader says what is missing.
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

    # A 4 GiB -wal (sparse: no disk) was copied whole to a temporary folder (29 s) when its -shm was
    # not there; a -journal would be too. Refused at the journal limit, with or without the -shm.
    for name, keep_shm in (("wal_4gib_sparse", True), ("wal_4gib_sparse_without_shm", False)):
        folder = os.path.join(out, "sqlite", name)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "trace.sawtooth")
        shutil.copy(sample, path)
        subprocess.run([sys.executable, "-c", WRITER, path, "kill"], check=True)
        with open(path + "-wal", "r+b") as f:
            f.truncate(4 << 30)
        if not keep_shm:
            os.remove(path + "-shm")
        expect(os.path.relpath(path, out), "refused", "its -wal file holds 4.29 GB (4294967296 bytes), more than the journal limit")
    folder = os.path.join(out, "sqlite", "journal_4gib_sparse")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "trace.sawtooth")
    shutil.copy(sample, path)
    with open(path + "-journal", "wb") as f:
        f.truncate(4 << 30)
    expect(os.path.relpath(path, out), "refused", "rolling back its -journal means copying it with the database")


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
    collisions(out, samples)
    amplification(out)
    wrong_answers(out, samples)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(MANIFEST, f, indent=1)
    print(f"{out}: {len(MANIFEST)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
