"""Sawtooth's start-up shim: records a PyTorch program that knows nothing of Sawtooth.

sawtooth-record puts this package's folder on the program's PYTHONPATH and names its socket in
SAWTOOTH_SOCKET; sitecustomize.py calls activate() at interpreter start-up. Nothing happens until
the program imports torch (the shim never imports it first: a program may set its environment
before it does), and nothing the shim does may break the program: every failure becomes a
notice for the user.
"""
import json
import os
import sys

from . import channel, lifecycle, torch_hooks, wire  # loaded now: our folder leaves sys.path afterwards
from .import_watch import ImportWatcher

_LAUNCHERS = ("torch.distributed.run", "torch.distributed.launch")
_active = None  # this process's Shim, once activate() made one


def pause_recording(parts=torch_hooks.PAUSABLE):
    """For measuring the recording's cost inside one process (bench/gpu/foreign/gpt2_train.py
    --alternate): stops everything the recording does per step, in place, until resume_recording():
    PyTorch's CUDA allocator ("allocator", its history included), CUPTI's activities ("cupti"),
    the device memory sampler ("sampler"), phases and categories ("phases"), the module hooks
    ("modules"), each allocation's module tag alone, the marks going on ("module-tags"); `parts`
    names fewer, to see what each costs. The trace has a gap there, and says so. True if it paused (the native
    tracker only)."""
    return _set_paused(True, parts)


def resume_recording():
    return _set_paused(False)


def _set_paused(paused, parts=torch_hooks.PAUSABLE):
    if _active is None or not _active.pause(paused, parts):
        return False
    if paused and not getattr(_active, "told_paused", False):
        _active.told_paused = True
        _active.ch.notice("warning", "the program paused the recording (an overhead measurement): the trace has gaps "
                                     "in allocator events, driver allocations, phases and categories, and frees of "
                                     "blocks allocated in them")
    return True


def _role():
    argv = getattr(sys, "orig_argv", sys.argv)
    if os.path.basename(sys.argv[0] if sys.argv else "") == "torchrun" or any(
            argv[i] == "-m" and argv[i + 1] in _LAUNCHERS for i in range(len(argv) - 1)):
        return "launcher"  # torchrun itself: its workers are the ranks
    if "RANK" in os.environ:
        return "worker"
    parent = os.environ.get("SAWTOOTH_PARENT_PID")
    if parent and parent != str(os.getpid()):
        return "helper"  # started by a recorded process (a spawned DataLoader worker...): CUDA only
    return "main"


def _env_int(name):
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return -1


def activate():
    """Connects to the recorder and prepares the hooks. Nothing here reaches the program: a
    failure before the connection leaves the program unrecorded (the recorder says nothing
    connected), one after it is a notice."""
    path = os.environ.get(wire.SOCKET_ENV)
    if not path:
        return
    try:
        options = json.loads(os.environ.get("SAWTOOTH_OPTIONS") or "{}")
    except ValueError:
        options = {}
    if not isinstance(options, dict):
        options = {}
    role = _role()
    hello = {"role": "shim", "process_role": role, "pid": os.getpid(), "ppid": os.getppid(),
             "argv": list(getattr(sys, "orig_argv", sys.argv)), "python": sys.version.split()[0]}
    for key in ("RANK", "LOCAL_RANK", "WORLD_SIZE"):
        if key in os.environ:
            hello[key.lower()] = _env_int(key)
    try:
        ch = channel.Channel(path, hello)
    except (OSError, ValueError):
        return  # no recorder listening: run unrecorded
    os.environ["SAWTOOTH_PARENT_PID"] = str(os.getpid())
    if role == "launcher":
        ch.bye("launcher")
        ch.close()
        return
    shim = torch_hooks.Shim(ch, options, role)
    try:
        global _active
        _active = shim
        lifecycle.Lifecycle(shim).install()
        try:
            shim.children.install_os()
            shim.children.install_subprocess()  # when the program imported subprocess before us
        except Exception as e:
            shim.guard.report("noting the program's child processes", e)
        on_torch = shim.guard.wrap("setting up the recording of PyTorch", shim.on_torch)
        if "torch" in sys.modules:
            on_torch(sys.modules["torch"])
        else:
            sys.meta_path.insert(0, ImportWatcher("torch", on_torch))
    except Exception as e:
        shim.guard.report("starting the recording shim", e)
