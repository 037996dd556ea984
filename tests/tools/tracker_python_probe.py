"""Run by torch_tracker_test: allocations through tracker_python_probe (a stand-in for the CUDA
caching allocator) from a small training loop, so that the tracker names real Python frames.
Usage: tracker_python_probe.py PROBE_LIBRARY SOCKET"""
import ctypes
import sys
import time

import os

import torch  # noqa: F401 -- installs PyTorch's Python stack capture, which the probe uses

lib = ctypes.CDLL(sys.argv[1])  # CDLL lets the GIL go around each call, as the allocator's caller may
lib.probe_start.argtypes = [ctypes.c_char_p]
lib.probe_alloc.argtypes = [ctypes.c_ulonglong, ctypes.c_ulonglong]
torch_symbolizer = os.environ.get("SAWTOOTH_PROBE_TORCH_SYMBOLIZER") == "1"
if torch_symbolizer:
    import torch._inductor.codecache  # noqa: F401 -- as the shim does: PyTorch's symbolizer imports it on first use
if lib.probe_start(sys.argv[2].encode()) != 0:
    sys.exit("the tracker did not start")
if torch_symbolizer:
    lib.probe_use_torch_symbolizer()


def allocate(first, n):
    for i in range(n):
        lib.probe_alloc(first + i, 512)  # line: allocate


def elsewhere():
    lib.probe_alloc(0x9000, 64)  # line: elsewhere


def train():
    for step in range(3):
        allocate(0x1000 + 0x100 * step, 50)
        if step == 1:
            elsewhere()
        time.sleep(1.3)  # past the tracker's longest wait: the next step goes in another delivery


train()
lib.probe_stop()
# The tracker names frames itself until told torch's symbolizer may run: nothing imported behind the program.
if not torch_symbolizer and "torch._dynamo" in sys.modules:
    sys.exit("naming the frames imported torch._dynamo")
