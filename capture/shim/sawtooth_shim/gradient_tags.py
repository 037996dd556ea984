"""What the shim knows of one optimizer between steps, and its gradients' tags.

Gradients are tagged at every step: one that zero_grad freed comes back as a new block. On GPT-2
small (148 parameters) this was most of the shim's work per step, so the parameter list and each
parameter's device are kept between steps, and a step's tags are written into a copy of a
prepared buffer (the time and the data pointers only) instead of being packed one by one.

Nothing here holds a parameter: the list is read from the optimizer at each step (a dropped model
must be freed as it would be unrecorded); only the buffer's shape and devices are kept.
"""
import struct
import sys
from array import array

from . import wire

_WORDS = wire.RECORD.size // 8  # a record as 64-bit words: t_ns, addr, size, stream, then two more
_REST = struct.Struct("<IhBB")   # stack, device, action, kind: the record's fifth word
_OWNER = struct.Struct("<IB3x")  # module, pass: its sixth
_FAST = sys.byteorder == "little" and _WORDS * 8 == wire.RECORD.size  # the wire is little-endian


def _rest_word(device):
    return int.from_bytes(_REST.pack(wire.NO_STACK, device, wire.GRADIENT, wire.TAG), "little")


def _owner_word(module):
    return int.from_bytes(_OWNER.pack(module, wire.NO_PASS), "little")


class OptimizerTags:
    def __init__(self):
        self.steps = 0          # steps seen
        self.state_tensors = 0  # len(optimizer.state) when the state was last tagged
        self._shape = None      # the parameter lists (identity and length) the buffer was built for
        self._template = array("Q")

    def parameters(self, optimizer, owner=None):
        """The optimizer's parameters now (not kept); the buffer is rebuilt when its groups change.
        owner: parameter -> the id of its module (modules.py), for the gradients' tags."""
        groups = optimizer.param_groups
        params = [p for group in groups for p in group["params"]]
        shape = [(id(group["params"]), len(group["params"])) for group in groups]
        if shape != self._shape:
            self._shape = shape
            words = []
            for p in params:
                try:
                    device = p.get_device()  # a gradient lives on its parameter's device
                except Exception:
                    device = -1
                module = owner(p) if owner is not None else wire.NO_MODULE
                words += [0, 0, 0, 0, _rest_word(device), _owner_word(module)]
            self._template = array("Q", words)
        return params

    def gradient_records(self, params, now):
        """The gradients' TAG records (wire.RECORD, stamped `now`) of `params` (this step's
        parameters()) as one bytes object."""
        grads = [p.grad for p in params]
        if _FAST:
            try:
                ptrs = array("Q", [g.data_ptr() for g in grads])
            except (AttributeError, RuntimeError, TypeError, OverflowError):
                ptrs = None  # a parameter without a gradient, or one without storage
            if ptrs is not None and 0 not in ptrs and len(ptrs) * _WORDS == len(self._template):
                records = array("Q", self._template)
                records[0::_WORDS] = array("Q", [now]) * len(ptrs)
                records[1::_WORDS] = ptrs
                return records.tobytes()
        return self._records_one_by_one(grads, now)

    @staticmethod
    def _records_one_by_one(grads, now):
        pack, out = wire.RECORD.pack, []
        for g in grads:
            if g is None:
                continue
            try:
                ptr, device = g.data_ptr(), g.get_device()
            except Exception:  # meta tensors, subclasses without storage
                continue
            if ptr:
                out.append(pack(now, ptr, 0, 0, wire.NO_STACK, device, wire.GRADIENT, wire.TAG, wire.NO_MODULE,
                                wire.NO_PASS))
        return b"".join(out)
