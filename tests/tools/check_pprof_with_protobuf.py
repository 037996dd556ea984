#!/usr/bin/env python3
"""Cross-check of independent_pprof.py's hand-written wire decoder against Google's protobuf library
(pip package `protobuf`, not needed by CI), with pprof's Profile schema declared here field by field.
Usage: check_pprof_with_protobuf.py FILE...   exits 0 when both readings agree on every sample."""
import gzip
import os
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import independent_pprof  # noqa: E402

T = descriptor_pb2.FieldDescriptorProto


def schema():
    f = descriptor_pb2.FileDescriptorProto(name="pprof_check.proto", package="check", syntax="proto3")
    def msg(name, *fields):
        m = f.message_type.add(name=name)
        for number, fname, ftype, repeated, type_name in fields:
            fd = m.field.add(name=fname, number=number, type=ftype,
                             label=T.LABEL_REPEATED if repeated else T.LABEL_OPTIONAL)
            if type_name:
                fd.type_name = ".check." + type_name
    msg("ValueType", (1, "type", T.TYPE_INT64, False, None), (2, "unit", T.TYPE_INT64, False, None))
    msg("Label", (1, "key", T.TYPE_INT64, False, None), (2, "str", T.TYPE_INT64, False, None),
        (3, "num", T.TYPE_INT64, False, None), (4, "num_unit", T.TYPE_INT64, False, None))
    msg("Sample", (1, "location_id", T.TYPE_UINT64, True, None), (2, "value", T.TYPE_INT64, True, None),
        (3, "label", T.TYPE_MESSAGE, True, "Label"))
    msg("Line", (1, "function_id", T.TYPE_UINT64, False, None), (2, "line", T.TYPE_INT64, False, None))
    msg("Location", (1, "id", T.TYPE_UINT64, False, None), (4, "line", T.TYPE_MESSAGE, True, "Line"))
    msg("Function", (1, "id", T.TYPE_UINT64, False, None), (2, "name", T.TYPE_INT64, False, None),
        (4, "filename", T.TYPE_INT64, False, None))
    msg("Profile", (1, "sample_type", T.TYPE_MESSAGE, True, "ValueType"), (2, "sample", T.TYPE_MESSAGE, True, "Sample"),
        (4, "location", T.TYPE_MESSAGE, True, "Location"), (5, "function", T.TYPE_MESSAGE, True, "Function"),
        (6, "string_table", T.TYPE_STRING, True, None))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("check.Profile"))


def with_protobuf(data):
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    p = schema()()
    p.ParseFromString(data)
    s = p.string_table
    types = [(s[t.type], s[t.unit]) for t in p.sample_type]
    locations = {loc.id: loc for loc in p.location}
    functions = {fn.id: fn for fn in p.function}
    out = []
    for sample in p.sample:
        values = dict(zip(types, sample.value))
        labels = {s[l.key]: (s[l.str] if l.str else l.num) for l in sample.label}
        frames = [[s[functions[line.function_id].name], s[functions[line.function_id].filename], line.line]
                  for loc in sample.location_id for line in locations[loc].line]
        out.append({"count": values.get(("allocations", "count"), 1), "bytes": values[("space", "bytes")],
                    "labels": labels, "frames": frames})
    return out


failed = False
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    ours, theirs = independent_pprof.decode(data), with_protobuf(data)
    same = ours == theirs
    failed |= not same
    print(f"{path}: {len(theirs)} samples, {'the same' if same else 'DIFFERENT'} in both readings")
sys.exit(1 if failed else 0)
