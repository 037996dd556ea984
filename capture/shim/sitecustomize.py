"""Sawtooth's start-up hook (sawtooth-record -- COMMAND puts this folder on PYTHONPATH).

Python imports only the first sitecustomize on its path: this one starts the recording shim when
SAWTOOTH_SOCKET is set, then imports the sitecustomize it hides, if there is one, so that the
program starts exactly as it would without us. Our folder leaves sys.path again.
"""
import os
import sys


def _start_shim():
    if not os.environ.get("SAWTOOTH_SOCKET"):
        return
    try:
        import sawtooth_shim
        sawtooth_shim.activate()
    except Exception:  # the program starts whatever happens here, and hears nothing of it (sawtooth-record
        pass           # says that no process of the program connected)


def _chain():
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        import sitecustomize  # noqa: F401  (the next one on the path)
    except ImportError as e:
        if e.name != "sitecustomize":
            print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(e).__name__}: {e}", file=sys.stderr)
        if ours is not None:
            sys.modules["sitecustomize"] = ours
    except Exception as e:  # as site.py reports an error in sitecustomize
        print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(e).__name__}: {e}", file=sys.stderr)


_start_shim()
_chain()
