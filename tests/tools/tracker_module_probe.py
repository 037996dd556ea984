"""Run by torch_tracker_test: allocations through tracker_python_probe in the forward and the
backward of autograd functions, inside and outside the calls of modules the script marks as the
shim does, so that the tracker says each allocation's module: forward by the open call, backward
(run by autograd, on the CPU on this thread) by the node whose forward made it, recompute by the
call open inside backward. Calls marked with pass 0 (as the shim marks them) are a forward, or a
recompute when autograd runs a node on the thread: the tracker tells.
Usage: tracker_module_probe.py PROBE_LIBRARY SOCKET"""
import ctypes
import sys

import torch

lib = ctypes.CDLL(sys.argv[1])
lib.probe_start.argtypes = [ctypes.c_char_p]
lib.probe_alloc.argtypes = [ctypes.c_ulonglong, ctypes.c_ulonglong]
lib.probe_module_enter.argtypes = [ctypes.c_uint, ctypes.c_int]
lib.probe_module_exit.argtypes = [ctypes.c_uint]
lib.probe_tag_modules.argtypes = [ctypes.c_int]
if lib.probe_start(sys.argv[2].encode()) != 0:
    sys.exit("the tracker did not start")
FORWARD, RECOMPUTE, TRACKER_TELLS = 1, 3, 0
NET, A, CHECKPOINTED = 1, 2, 3


class Alloc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, addr):
        ctx.addr = addr
        lib.probe_alloc(addr, 64)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        lib.probe_alloc(ctx.addr + 0x100, 32)
        if ctx.addr == 0x2000:  # as torch.utils.checkpoint runs a module again inside backward
            lib.probe_module_enter(CHECKPOINTED, TRACKER_TELLS)  # the tracker sees autograd running a node
            lib.probe_alloc(0x2200, 16)
            lib.probe_module_exit(CHECKPOINTED)
        return grad * 2, None


x = torch.ones(2, requires_grad=True)
lib.probe_module_enter(NET, TRACKER_TELLS)  # as the shim marks every call: the tracker says forward
lib.probe_module_enter(A, FORWARD)
y = Alloc.apply(x, 0x1000)
lib.probe_module_exit(A)
z = Alloc.apply(y, 0x2000)
lib.probe_module_exit(NET)
w = Alloc.apply(z, 0x3000)  # a loss outside any module
w.sum().backward()
# An overhead measurement's module-tags part: the marks go on, the allocations go untagged.
lib.probe_tag_modules(0)
lib.probe_module_enter(NET, FORWARD)
lib.probe_alloc(0x4000, 8)
lib.probe_module_exit(NET)
lib.probe_tag_modules(1)
lib.probe_stop()
