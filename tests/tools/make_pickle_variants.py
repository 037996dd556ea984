#!/usr/bin/env python3
"""Writes the pickle variants the tests read, from the real PyTorch fixtures, with Python's own
pickle module: the same snapshot in protocols 0, 1, 2 and 5, and hostile pickles that import and
call (GLOBAL os.system + REDUCE, STACK_GLOBAL, BUILD, INST, NEWOBJ, PERSID).
Run from tests/data:  python3 ../tools/make_pickle_variants.py"""
import gzip
import io
import os
import pickle


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


class WithState:
    def __init__(self):
        self.x = 1


def main():
    with open("anatomy_adam_snapshot.pickle", "rb") as f:
        snap = pickle.load(f)
    for proto in (0, 1, 2, 5):
        name = f"anatomy_adam_snapshot_protocol{proto}.pickle"
        data = pickle.dumps(snap, protocol=proto)
        if proto in (0, 1):
            with open(name + ".gz", "wb") as f:
                f.write(gzip.compress(data, mtime=0))
        else:
            with open(name, "wb") as f:
                f.write(data)

    hostile = {
        "hostile_global_reduce_p0.pickle": pickle.dumps(Evil(), protocol=0),
        "hostile_global_reduce_p2.pickle": pickle.dumps({"segments": [], "x": Evil()}, protocol=2),
        "hostile_stack_global_p4.pickle": pickle.dumps([Evil()], protocol=4),
        "hostile_build_p2.pickle": pickle.dumps(WithState(), protocol=2),
        "hostile_inst_p0.pickle": b"(i__main__\nWithState\n(dp0\nb.",
        "hostile_persid_p0.pickle": b"Pfoo\n.",
    }
    for name, data in hostile.items():
        with open(name, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
