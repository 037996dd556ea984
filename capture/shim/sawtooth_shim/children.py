"""The processes the program starts through subprocess (subprocess.run, Popen, os.popen): the
recorder hears each one's pid and command, so that one that never connects — not a Python
program (a shell, a compiler, a tool), or Python started with -I, -E or -S — is named as left out
of the recording instead of missing silently. A Python child connects by itself (it inherits
SAWTOOTH_SOCKET) and records into FILE.pidP once it allocates through torch.
"""
import os
import shlex
import sys

from .guard import then

META_PREFIX = "child_process."  # + pid: the command, as the recorder's meta key (capture/ingest)
_MAX_COMMAND = 200


def command_text(args, shell):
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    words = [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in list(args)[:32]]
    if shell:
        words = ["/bin/sh", "-c"] + [" ".join(words)]
    text = shlex.join(words)
    return text if len(text) <= _MAX_COMMAND else text[:_MAX_COMMAND - 3] + "..."


def install(channel, guard):
    """After Popen has started a child: its pid and command line. subprocess is imported already
    (torch imports it); the shim never imports it for the program."""
    subprocess = sys.modules.get("subprocess")
    popen = getattr(subprocess, "Popen", None) if subprocess is not None else None
    if popen is None or not hasattr(popen, "_execute_child"):
        return

    def started(process, args, executable=None, *rest):
        pid = getattr(process, "pid", None)
        if isinstance(pid, int) and pid > 0:
            # _execute_child(args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo,
            # creationflags, shell, ...): the same order in every Python 3
            shell = bool(rest[7]) if len(rest) > 7 else False
            channel.meta({f"{META_PREFIX}{pid}": command_text(args, shell)})

    popen._execute_child = then(popen._execute_child, guard, "noting the program's child processes", started)
