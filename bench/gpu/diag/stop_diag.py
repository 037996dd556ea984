"""A recorded CPU training loop stopped by SIGTERM or SIGINT through sawtooth-record, with and without
parts of the recording; prints how the file says it ended. Usage: stop_diag.py SAWTOOTH_RECORD PYTHON OUT [CASE,...]"""
import os
import signal
import sqlite3
import sys

from programs import TRAIN, signalled, write

rec, python, out = sys.argv[1:4]
train = write(out, "train.py", TRAIN)
CASES = (("term-default", [], signal.SIGTERM), ("term-cpu-off", ["--cpu", "off"], signal.SIGTERM),
         ("term-portable", ["--shim", "portable", "--cpu", "on"], signal.SIGTERM),
         ("int-default", [], signal.SIGINT), ("int-cpu-off", ["--cpu", "off"], signal.SIGINT),
         ("int-shim-off", ["--cpu", "off", "--shim", "off", "--modules", "off"], signal.SIGINT))
only = sys.argv[4].split(",") if len(sys.argv) > 4 else None
for label, extra, sig in CASES:
    if only and label not in only:
        continue
    trace = os.path.join(out, label + ".sawtooth")
    for s in ("", "-wal", "-shm"):
        if os.path.exists(trace + s):
            os.remove(trace + s)
    status, line, err = signalled([rec, "--out", trace, *extra, "--", python, train], sig)  # the recorder passes it on
    print(f"== {label}: exit {status}; got {line!r}")
    print("   stderr tail:", err[-700:].replace("\n", "\n   "))
    db = sqlite3.connect(f"file:{trace}?mode=ro", uri=True)
    m = dict(db.execute("SELECT key, value FROM meta").fetchall())
    for k in sorted(m):
        if k.startswith(("complete", "incomplete", "capture.tracker", "capture.shim", "program.end", "notices",
                         "shim_mode", "program.exit")):
            print(f"   {k} = {m[k][:400]}")
