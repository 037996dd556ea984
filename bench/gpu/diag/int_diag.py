"""SIGINT to a sleeping program (with and without torch) and to a training loop (autograd, Adam),
unrecorded and recorded in several ways: the exit status of each. Usage: int_diag.py SAWTOOTH_RECORD PYTHON OUT"""
import signal
import sys

from programs import SLEEPER, TRAIN, signalled, write

rec, python, out = sys.argv[1:4]
sleeper, train = write(out, "sleeper.py", SLEEPER), write(out, "train.py", TRAIN)


def recorded(name, *options):
    return [rec, "--quiet", *options, "--out", f"{out}/{name}.sawtooth", "--force", "--"]


cases = [("unrecorded sleeper", [python, sleeper, "plain"]), ("unrecorded sleeper with torch", [python, sleeper, "torch"]),
         ("recorded sleeper", recorded("a") + [python, sleeper, "plain"]),
         ("recorded sleeper with torch", recorded("b") + [python, sleeper, "torch"]),
         ("recorded sleeper with torch, --cupti off", recorded("c", "--cupti", "off") + [python, sleeper, "torch"]),
         ("recorded sleeper with torch, --shim off --cpu off --modules off",
          recorded("d", "--shim", "off", "--cpu", "off", "--modules", "off") + [python, sleeper, "torch"]),
         ("recorded sleeper, no shim (-S)", recorded("e") + [python, "-S", sleeper, "plain"]),
         ("unrecorded training loop", [python, train]), ("recorded training loop", recorded("f") + [python, train])]
for label, cmd in cases:
    status, line, err = signalled(cmd, signal.SIGINT)
    print(f"{label}: exit {status} ({line}); stderr: {err.strip().splitlines()[-1:] if err.strip() else ''}")
