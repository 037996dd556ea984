#!/usr/bin/env python3
"""The Python shim's wire constants (capture/shim/sawtooth_shim/wire.py) against the C++ contract
(core/recording/wire.h, core/model/action.h) as printed by wire_contract_dump: any drift fails.

usage: check_wire_contract.py WIRE_CONTRACT_DUMP SHIM_DIR
"""
import importlib.util
import json
import struct
import subprocess
import sys

dump, shim_dir = sys.argv[1], sys.argv[2]
c = json.loads(subprocess.run([dump], check=True, capture_output=True, text=True).stdout)
spec = importlib.util.spec_from_file_location("wire", f"{shim_dir}/sawtooth_shim/wire.py")
w = importlib.util.module_from_spec(spec)
spec.loader.exec_module(w)

failures = []


def same(what, cpp, py):
    if cpp != py:
        failures.append(f"{what}: C++ {cpp!r}, Python {py!r}")


same("magic", c["magic"].encode(), w.MAGIC)
same("protocol version", c["protocol_version"], w.PROTOCOL_VERSION)
same("hello prefix size", c["hello_prefix_size"], w.HELLO_PREFIX.size)
same("header size", c["header_size"], w.HEADER.size)
same("max payload", c["max_payload"], w.MAX_PAYLOAD)
same("no stack", c["no_stack"], w.NO_STACK)
same("no module", c["no_module"], w.NO_MODULE)
same("max stack depth", c["max_stack_depth"], w.MAX_STACK_DEPTH)
same("record size", c["record_size"], w.RECORD.size)
same("kernel size", c["kernel_size"], w.KERNEL.size)
same("CPU device", c["cpu_device"], w.CPU_DEVICE)
same("socket variable", c["socket_env"], w.SOCKET_ENV)
same("frame types", c["frame_types"], w.FRAME_TYPES)
same("record kinds", c["record_kinds"], w.RECORD_KINDS)
same("record kind count", c["record_kind_count"], len(w.RECORD_KINDS))
same("shim streams", c["shim_streams"], w.SHIM_STREAMS)
same("categories", c["categories"], w.CATEGORIES)
same("passes", c["passes"], w.PASSES)
# The shim sends the allocator's actions by PyTorch's names; every one it knows must be the C++ value.
for name, value in w.ACTIONS.items():
    same(f"action {name}", c["actions"].get(name), value)
# The named constants are the table's values (a constant edited alone would drift from its table).
for name, table, key in (("HELLO", w.FRAME_TYPES, "hello"), ("BYE", w.FRAME_TYPES, "bye"),
                         ("RECORDS", w.FRAME_TYPES, "records"), ("TAG", w.RECORD_KINDS, "tag"),
                         ("ANNOTATION_END", w.RECORD_KINDS, "annotation_end"), ("GRADIENT", w.CATEGORIES, "gradient"),
                         ("CUDA_HISTORY", w.SHIM_STREAMS, "cuda_history"), ("OOM", w.ACTIONS, "oom"),
                         ("MODULES", w.FRAME_TYPES, "modules"), ("MODULE_ENTER", w.RECORD_KINDS, "module_enter"),
                         ("MODULE_EXIT", w.RECORD_KINDS, "module_exit"), ("RECOMPUTE", w.PASSES, "recompute"),
                         ("NO_PASS", w.PASSES, "none")):
    same(f"wire.{name}", table[key], getattr(w, name))
hello = w.hello(b"{}")
same("hello frame", hello[w.HEADER.size:w.HEADER.size + 8], w.MAGIC)
same("hello version", struct.unpack_from("<H", hello, w.HEADER.size + 8)[0], c["protocol_version"])

if failures:
    print("the shim's wire.py has drifted from core/recording/wire.h:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"wire contract: {len(c['frame_types'])} frame types, {len(c['record_kinds'])} record kinds, "
      f"{len(w.ACTIONS)} actions, {len(c['categories'])} categories, {len(c['passes'])} passes, protocol {c['protocol_version']}: C++ and Python agree")
