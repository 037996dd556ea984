#!/usr/bin/env python3
"""Independent reading of JAX device memory profiles (jax.profiler.save_device_memory_profile: pprof's
Profile protobuf, gzip or not), with Python's standard library only: a protobuf wire decoder written
from the encoding's specification (https://protobuf.dev/programming-guides/encoding/) and pprof's field
numbers (github.com/google/pprof proto/profile.proto). Used by independent_reader.py.

Usage: independent_pprof.py FILE   prints the decoded profile (samples with strings resolved) as JSON."""
import gzip
import json
import sys


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def fields(buf):
    """(field number, wire type, value) for each field of one message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 1:
            value, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wire == 2:
            n, i = varint(buf, i)
            value, i = buf[i:i + n], i + n
        elif wire == 5:
            value, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value


def ints(wire, value):
    """A repeated integer field: one varint, or a packed run of them."""
    if wire == 0:
        return [value]
    out, i = [], 0
    while i < len(value):
        v, i = varint(value, i)
        out.append(v)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def decode(data):
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    sample_types, samples, locations, functions, strings = [], [], {}, {}, []
    for number, wire, value in fields(data):
        if number == 1:
            vt = dict((n, v) for n, _, v in fields(value))
            sample_types.append((vt.get(1, 0), vt.get(2, 0)))
        elif number == 2:
            s = {"locations": [], "values": [], "labels": []}
            for n, w, v in fields(value):
                if n == 1:
                    s["locations"] += ints(w, v)
                elif n == 2:
                    s["values"] += [signed(x) for x in ints(w, v)]
                elif n == 3:
                    s["labels"].append(dict((k, x) for k, _, x in fields(v)))
            samples.append(s)
        elif number == 4:
            loc_id, lines = 0, []
            for n, _, v in fields(value):
                if n == 1:
                    loc_id = v
                elif n == 4:
                    line = dict((k, x) for k, _, x in fields(v))
                    lines.append((line.get(1, 0), signed(line.get(2, 0))))
            locations[loc_id] = lines
        elif number == 5:
            fn = dict((n, v) for n, _, v in fields(value))
            functions[fn.get(1, 0)] = (fn.get(2, 0), fn.get(4, 0))
        elif number == 6:
            strings.append(value.decode("utf-8", "replace"))
    types = [(strings[t], strings[u]) for t, u in sample_types]
    out = []
    for s in samples:
        values = dict(zip(types, s["values"]))
        labels = {strings[l.get(1, 0)]: (strings[l[2]] if l.get(2) else signed(l.get(3, 0))) for l in s["labels"]}
        frames = []
        for loc in s["locations"]:
            for fn_id, line in locations[loc]:
                name, filename = functions[fn_id]
                frames.append([strings[name], strings[filename], line])
        out.append({"count": values.get(("allocations", "count"), 1), "bytes": values[("space", "bytes")],
                    "labels": labels, "frames": frames})
    return out


def device_id(name):
    platform, _, index = name.partition(":")
    if platform in ("cuda", "gpu", "rocm"):
        return int(index)
    if name == "cpu:0":
        return -1
    raise ValueError(f"device {name}: not in the fixtures")


def expected(data):
    """What `sawtooth-trace info --json` must print for a JAX profile: one alloc event per live buffer
    (a sample of n buffers is n buffers of bytes / n), in file order, per device."""
    samples = decode(data)
    per = {}
    executables = []
    for s in samples:
        if s["labels"].get("kind") == "executable":
            executables.append(s["bytes"])
            continue
        d = device_id(s["labels"]["device"])
        per.setdefault(d, []).extend([s["bytes"] // s["count"]] * s["count"])
    total = sum(len(v) for v in per.values())
    out = {"format": "jax-memory-profile", "events": total, "actions": {"alloc": total} if total else {}, "devices": [],
           "executables": len(executables), "executable_code_bytes": sum(executables)}
    for d in sorted(per):
        sizes = per[d]
        live, peak, peak_i = 0, 0, -1
        for i, size in enumerate(sizes):
            live += size
            if live > peak:
                peak, peak_i = live, i
        out["devices"].append({"device": d, "events": len(sizes), "peak_allocated_bytes": peak,
                               "peak_allocated_event_index": peak_i, "final_allocated_bytes": live,
                               "peak_reserved_bytes": 0, "oom_events": 0, "live_buffers": len(sizes)})
    return out


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as f:
        json.dump(decode(f.read()), sys.stdout, indent=1)
    sys.stdout.write("\n")
