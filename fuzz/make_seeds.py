#!/usr/bin/env python3
"""Writes the small seed inputs of the fuzzers (fuzz/corpus/<target>/) from the real fixtures in
tests/data, cut down to a few KB each so that libFuzzer mutates structure, not bulk.
Run from the repository root:  python3 fuzz/make_seeds.py"""
import copy
import gzip
import json
import os
import pickle
import shutil
import sqlite3
import tempfile

DATA = "tests/data"
OUT = "fuzz/corpus"


def cut_snapshot(snap, events, frames, segments, blocks):
    s = copy.deepcopy(snap)
    s["segments"] = s["segments"][:segments]
    for seg in s["segments"]:
        seg["blocks"] = seg["blocks"][:blocks]
        seg["frames"] = seg["frames"][:frames]
    traces = []
    for dev in s["device_traces"]:
        kept = dev[:events]
        for e in kept:
            e["frames"] = e["frames"][:frames]
        traces.append(kept)
    s["device_traces"] = traces
    s["external_annotations"] = s.get("external_annotations", [])[:4]
    return s


def write(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data)
    assert len(data) <= 16384, (name, len(data))


def snapshot_seeds():
    with open(os.path.join(DATA, "anatomy_adam_snapshot.pickle"), "rb") as f:
        anatomy = pickle.load(f)
    small = cut_snapshot(anatomy, events=8, frames=3, segments=2, blocks=2)
    # The same list of frames shared by two events, as the pickler memo writes repeated objects.
    shared = cut_snapshot(anatomy, events=4, frames=2, segments=1, blocks=1)
    for e in shared["device_traces"][0]:
        e["frames"] = shared["device_traces"][0][0]["frames"]
    for proto in (0, 1, 2, 4):
        write("snapshot", f"anatomy_p{proto}.pickle", pickle.dumps(small, protocol=proto))
    write("snapshot", "shared_frames_p4.pickle", pickle.dumps(shared, protocol=4))
    write("snapshot", "segments_only_p2.pickle", pickle.dumps(small["segments"], protocol=2))

    oom = pickle.loads(gzip.open(os.path.join(DATA, "oom_mlp_snapshot_protocol2.pickle.gz")).read())
    oom_small = cut_snapshot(oom, events=6, frames=2, segments=2, blocks=2)
    oom_small["device_traces"][0].append(oom["device_traces"][0][-1])  # the 'oom' entry itself
    write("snapshot", "oom_p2.pickle", pickle.dumps(oom_small, protocol=2))

    two = copy.deepcopy(small)
    two["device_traces"].append(copy.deepcopy(small["device_traces"][0][:3]))
    write("snapshot", "two_devices_p4.pickle", pickle.dumps(two, protocol=4))

    for name in sorted(os.listdir(DATA)):
        if name.startswith("hostile_"):
            shutil.copy(os.path.join(DATA, name), os.path.join(OUT, "snapshot", name))
    shutil.copy(os.path.join(DATA, "synthetic_expandable_streams.pickle"),
                os.path.join(OUT, "snapshot", "expandable_streams_p4.pickle"))


def profiler_seeds():
    trace = json.load(gzip.open(os.path.join(DATA, "anatomy_adam_profiler_trace.json.gz")))
    events = trace["traceEvents"]
    memory = [e for e in events if e.get("name") == "[memory]"]
    ranges = [e for e in events if e.get("cat") == "user_annotation"]
    others = [e for e in events if e.get("cat") in ("cpu_op", "kernel")][:2]
    header = {k: v for k, v in trace.items() if k != "traceEvents"}
    header["deviceProperties"] = [{k: v for k, v in d.items() if k in ("id", "name", "totalGlobalMem")}
                                  for d in header.get("deviceProperties", [])]
    small = dict(header, traceEvents=memory[:10] + ranges[:2] + others)
    write("profiler_trace", "anatomy.json", json.dumps(small).encode())
    write("profiler_trace", "anatomy_indented.json", json.dumps(dict(small, traceEvents=memory[:4]), indent=1).encode())
    write("profiler_trace", "event_array.json", json.dumps(memory[:6] + ranges[:1]).encode())

    oom = dict(memory[0], name="[OutOfMemory]")
    oom["args"] = {"Bytes": 67108864, "Total Allocated": 1 << 30, "Total Reserved": 1 << 31,
                   "Device Id": 0, "Device Type": 1}
    cpu = dict(memory[1])
    cpu["args"] = dict(cpu["args"], **{"Device Type": 0, "Device Id": -1})
    write("profiler_trace", "oom_and_cpu.json", json.dumps({"traceEvents": memory[:3] + [cpu, oom]}).encode())


ROWS = ("INSERT INTO devices VALUES(0, 'NVIDIA H200', 150000000000, 0, 0);"
        "INSERT INTO runs VALUES(0, 'fp32', 'precision');"
        "INSERT INTO run_config VALUES(0, 'batch', '2048');"
        "INSERT INTO measurements VALUES(0, 'step_ms', 22.5, 'ms');"
        "INSERT INTO phases VALUES(0, 'forward', 'phase', 0, 0, 0, 1500);"
        "INSERT INTO frames VALUES(0, 'forward', 'model.py', 10);"
        "INSERT INTO stacks VALUES(0, 0, 0);"
        "INSERT INTO events VALUES(0, 1000, 0, 0, 0, 4096, 512, 0, 0, 0, 0, 0);"
        "INSERT INTO events VALUES(1, 2000, 0, 0, 2, 4096, 512, 0, 0, NULL, NULL, NULL);"
        "INSERT INTO events VALUES(2, 3000, 0, 3, 9, 150000000000, 1000000, 0, 0, NULL, NULL, NULL);"
        "INSERT INTO counters VALUES(0, 'allocated', 0, 512);"
        "INSERT INTO kernel_names VALUES(0, 'gemm');"
        "INSERT INTO kernels VALUES(0, 7, 1100, 1900, 0, 0);")
# The same in the current format (seeds of mode 0, on the schema the fuzzer makes from
# native_schema.h): events with their module and pass, the module tree and its calls.
ROWS_CURRENT = (ROWS.split("INSERT INTO events")[0]
                + "INSERT INTO events VALUES(0, 1000, 0, 0, 0, 4096, 512, 0, 0, 0, 0, 0, 1, 1);"
                  "INSERT INTO events VALUES(1, 2000, 0, 0, 2, 4096, 512, 0, 0, NULL, NULL, NULL, 1, 2);"
                  "INSERT INTO events VALUES(2, 3000, 0, 3, 9, 150000000000, 1000000, 0, 0, NULL, NULL, NULL, NULL, NULL);"
                + ROWS.split("NULL, NULL, NULL);")[-1]
                + "INSERT INTO modules VALUES(0, 'Net', 'Net', NULL, 0);"
                  "INSERT INTO modules VALUES(1, '0', 'Linear', 0, 4096);"
                  "INSERT INTO module_calls VALUES(1, 1, 0, 900, 1500);")


def native_seeds():
    # Mode byte 0: the format's schema is made first, the rest is SQL on top of it; 1: the rest is
    # SQL on an empty database; 2: the rest is a database file (512-byte pages keep it small).
    with sqlite3.connect("file:resources/samples/anatomy.sawtooth?mode=ro&immutable=1", uri=True) as con:
        schema = ";\n".join(r[0] for r in con.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))
    write("native", "rows.sql", b"\x00" + ROWS_CURRENT.encode())
    # Segments, blocks and an out-of-memory: the allocator's state, its fragmentation series and
    # the out-of-memory index in the summaries the reader builds.
    write("native", "fragments.sql", b"\x00" + (ROWS.split("INSERT INTO events")[0]
          + "INSERT INTO events VALUES(0, 1000, 0, 0, 3, 65536, 2097152, 0, 0, NULL, NULL, NULL, NULL, NULL);"
            "INSERT INTO events VALUES(1, 2000, 0, 0, 0, 65536, 524288, 0, 1, NULL, NULL, NULL, NULL, NULL);"
            "INSERT INTO events VALUES(2, 3000, 0, 0, 0, 589824, 524288, 0, 5, NULL, NULL, NULL, NULL, NULL);"
            "INSERT INTO events VALUES(3, 4000, 0, 0, 2, 65536, 524288, 0, 1, NULL, NULL, NULL, NULL, NULL);"
            "INSERT INTO events VALUES(4, 5000, 0, 0, 7, 0, 4194304, 0, 0, NULL, NULL, NULL, NULL, NULL);"
            "INSERT INTO events VALUES(5, 6000, 0, 0, 4, 65536, 2097152, 0, 0, NULL, NULL, NULL, NULL, NULL);").encode())
    write("native", "events_view.sql",
          b"\x00DROP VIEW events_named; DROP TABLE events; CREATE VIEW events AS SELECT 0 AS seq, 1 AS t_ns, "
          b"0 AS device, 0 AS source, 0 AS action, 1 AS addr, 1 AS size, 0 AS stream, 0 AS category, NULL AS phase, "
          b"NULL AS stack, NULL AS run, NULL AS module, NULL AS pass;")
    write("native", "wrong_types.sql",
          b"\x00INSERT INTO events VALUES(0, 'x', 'gpu', 0, 0, x'00', -5, 0.5, 0, NULL, NULL, NULL, 'm', 0.5);"
          b"UPDATE meta SET value = '1.5';")
    write("native", "schema_and_rows.sql",
          b"\x01" + (schema + ";\nINSERT INTO meta VALUES('format_version', '1');" + ROWS).encode())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "small.sawtooth")
        con = sqlite3.connect(path)
        con.execute("PRAGMA page_size=512")
        con.executescript(schema + ";\nINSERT INTO meta VALUES('format_version', '1');" + ROWS)
        con.commit()
        con.execute("VACUUM")
        con.close()
        with open(path, "rb") as f:
            write("native", "small_file.sawtooth", b"\x02" + f.read())
def memory_timeline_seeds():
    times, sizes = json.load(open(os.path.join(DATA, "anatomy_adam_memory_timeline.raw.json")))
    write("memory_timeline", "plot_points.json", json.dumps([times[:12], sizes[:12]]).encode())
    raw = json.load(gzip.open(os.path.join(DATA, "anatomy_cpu_memory_timeline.raw.json.gz")))
    write("memory_timeline", "raw_events.json", json.dumps(raw[:30]).encode())
    bumps = [e for e in raw if e[1] == 3][:8]
    write("memory_timeline", "version_bumps.json", json.dumps(raw[:4] + bumps + raw[-2:]).encode())


def jax_profile_seeds():
    profile = gzip.decompress(open(os.path.join(DATA, "jax_seed_cpu.prof"), "rb").read())
    write("jax_profile", "seed_cpu.pb", profile)
    write("jax_profile", "seed_cpu_cut.pb", profile[:len(profile) // 3])


def hostile():
    """tests/make_hostile_corpus.py: the keys built to collide under the old fixed hashes, the pprof
    encoder and the snapshot shape."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("hostile", os.path.join("tests", "make_hostile_corpus.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python_line_seeds():
    """Lines of transformers' models the ladder's bf16 rung reads (activations.py, modeling_llama.py)."""
    lines = {
        "gelu.py.txt": "        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))",
        "rmsnorm.py.txt": "        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)",
        "upcast.py.txt": "    logits = logits.float()",
        "rotary.py.txt": "    q_embed = (q * cos) + (rotate_half(q) * sin)  # rotary",
        "mixed.py.txt": "    p = F.softmax(s / 8, dim=-1).to(torch.float32)[:, 0] ** 2 - x.view(b, -1).sum(dim=1, keepdim=True)",
    }
    for name, line in lines.items():
        write("python_line", name, line.encode())


def structure_seeds():
    """Structure the fuzzers never made on their own (issue 28): keys built to collide, a few bytes
    that stand for many events or frames, memo keys far past the memo, numbers that do not fit."""
    h = hostile()
    lines = h.colliding_frame_lines(0, 1, 500)
    frames = [{"name": "f", "filename": "x.py", "line": line} for line in lines]
    write("snapshot", "collide_frames_p4.pickle", pickle.dumps(h.snapshot([h.event("alloc", 4096, 512, 1, frames)]), protocol=4))
    events = [h.event("alloc", addr, 512, k + 1) for k, addr in enumerate(h.colliding_addresses(200))]
    write("snapshot", "collide_addresses_p4.pickle", pickle.dumps(h.snapshot(events), protocol=4))
    body = b"\x80\x04" + b"".join(b"Nr" + (k << 20).to_bytes(4, "little") for k in range(1, 9))
    write("snapshot", "memo_gaps_p4.pickle", body + b".")

    strings, buffer = h.PPROF_STRINGS, [(5, 6), (7, 8)]
    locations = [(i + 1, [(1, line)]) for i, line in enumerate(lines)]
    write("jax_profile", "collide_frames.prof",
          h.pprof(strings, [(list(range(1, 501)), [1, 512], buffer)], locations, [(1, 9, 10)]))
    write("jax_profile", "location_listed_often.prof",
          h.pprof(strings, [([1] * 400, [1, 512], buffer)], [(1, [(1, n) for n in range(1, 101)])], [(1, 9, 10)]))
    write("jax_profile", "count_2_20.prof", h.pprof(strings, [([], [1 << 20, 512 << 20], buffer)]))
    long_strings = strings + ["L" * 4096]
    write("jax_profile", "long_string_everywhere.prof",
          h.pprof(long_strings, [([], [1, 512], buffer + [(11, 11)] * 500)]) + h._pb_packed(13, [11] * 500))

    rows = ",".join(f"({i},'f','x.py',{line})" for i, line in enumerate(lines[:200]))
    stack = ",".join(f"(0,{i},{i})" for i in range(200))
    write("native", "collide_frames.sql",
          b"\x00" + f"INSERT INTO frames VALUES{rows};INSERT INTO stacks VALUES{stack};"
                    f"INSERT INTO events VALUES(0, 1000, 0, 0, 0, 4096, 512, 0, 0, NULL, 0, NULL);".encode())

    memory = {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1.0,
              "args": {"Addr": 4096, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 0, "Device Id": 0,
                       "Device Type": 1}}
    text = json.dumps({"traceEvents": [memory, dict(memory, ts="2.5"), dict(memory, ts=3)]})
    text = text.replace('"Bytes": 512', '"Bytes": "512"', 1).replace('"ts": 3', '"ts": 3e0', 1)
    write("profiler_trace", "numbers_as_written.json", text.encode())
    write("profiler_trace", "numbers_that_do_not_fit.json",
          json.dumps({"traceEvents": [memory, {"ph": "X", "cat": "cpu_op", "name": "mm", "ts": 1, "dur": 1e300},
                                      dict(memory, args=dict(memory["args"], Bytes=1e300))]}).encode())


FOUND_PREFIXES = ("regression-", "crash-", "timeout-")


def kept_regressions():
    """The inputs the fuzzers once failed on (regression-*, crash-*, timeout-*): not made here,
    kept across runs as they are (some are longer than the fuzzers' -max_len)."""
    kept = []
    for target in sorted(os.listdir(OUT)) if os.path.isdir(OUT) else []:
        for name in sorted(os.listdir(os.path.join(OUT, target))):
            if name.startswith(FOUND_PREFIXES):
                kept.append((target, name, open(os.path.join(OUT, target, name), "rb").read()))
    return kept


def main():
    regressions = kept_regressions()
    shutil.rmtree(OUT, ignore_errors=True)
    for target, name, data in regressions:
        os.makedirs(os.path.join(OUT, target), exist_ok=True)
        with open(os.path.join(OUT, target, name), "wb") as f:
            f.write(data)
    snapshot_seeds()
    profiler_seeds()
    native_seeds()
    memory_timeline_seeds()
    jax_profile_seeds()
    python_line_seeds()
    structure_seeds()
    for target in sorted(os.listdir(OUT)):
        files = os.listdir(os.path.join(OUT, target))
        size = sum(os.path.getsize(os.path.join(OUT, target, f)) for f in files)
        print(f"{target}: {len(files)} seeds, {size} bytes")


if __name__ == "__main__":
    main()
