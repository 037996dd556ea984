"""What the end-to-end checks of recorded programs share (check_program_recording.py,
check_program_faults.py, check_rung_recording.py): the failures found so far, the output folder
the scripts write their programs into, and a recording's meta table.

    import recording_checks as rc
    rc.start(out, python)   # exits 77 (CTest's skip) when PYTHON has no torch
    rc.check(cond, "what went wrong")
    sys.exit(rc.finish("every fault ended as documented"))
"""
import os
import sqlite3
import subprocess
import sys

failures = []  # one line per failed check, in the order found
out = None  # the folder write() writes into


def start(out_dir, python):
    """Makes OUT_DIR and exits 77 (the test is skipped) when PYTHON cannot import torch."""
    global out
    out = out_dir
    os.makedirs(out, exist_ok=True)
    if subprocess.run([python, "-c", "import torch"], capture_output=True).returncode != 0:
        print(f"skipped: {python} has no torch")
        sys.exit(77)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def write(name, text):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def remove_recording(path, suffixes=()):
    """Removes a recording, its -wal and -shm, and PATH + each of SUFFIXES; links too, not what they name."""
    for suffix in ("", "-wal", "-shm", *suffixes):
        if os.path.lexists(path + suffix):
            os.remove(path + suffix)


def meta(path):
    """A recording's meta table as a dict, read without writing."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
    db.close()
    return rows


def finish(passed):
    """The exit status: 1 and the count when a check failed, else 0 after printing PASSED."""
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print(passed)
    return 0
