"""The processes the program starts: the recorder hears of each one, so that one that records
nothing is named as left out of the recording, with why, instead of missing silently.

- subprocess (run, Popen, os.popen) and os.posix_spawn/posix_spawnp: its pid and command
  (child_process.PID). A Python child connects by itself (it inherits SAWTOOTH_SOCKET) and records
  into FILE.pidP once it allocates through torch; one that never connects is not a Python
  program (a shell, a compiler, a tool), or Python started with -I, -E or -S.
- os.fork (multiprocessing's fork start method, DataLoader workers, os.spawn*): its pid
  (child_fork.PID). A fork is not recorded (the parent's connection and profiler are not its
  own); one that execs a Python program connects and records as above.
- os.system: a shell whose pid Python never sees (child_shell.N, N counting from 1): the shell and
  whatever it runs are not recorded, except Python programs, which connect by themselves.

At most _MAX_NAMED children are named per process; past that, child_processes_unnamed counts them.
"""
import os
import shlex
import sys
import threading

from .guard import first, returned, then

META_PREFIX = "child_process."  # + pid: the command, as the recorder's meta key (capture/ingest)
FORK_PREFIX = "child_fork."     # + pid
SHELL_PREFIX = "child_shell."   # + a count: os.system's command
UNNAMED = "child_processes_unnamed"
_MAX_COMMAND = 200
_MAX_NAMED = 256


def command_text(args, shell=False):
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    words = [os.fsdecode(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in list(args)[:32]]
    if shell:
        words = ["/bin/sh", "-c"] + [" ".join(words)]
    text = shlex.join(words)
    return text if len(text) <= _MAX_COMMAND else text[:_MAX_COMMAND - 3] + "..."


class Children:
    def __init__(self, channel, guard):
        self.ch = channel
        self.guard = guard
        self.named = 0
        self.unnamed = 0
        self.shells = 0
        self.spawning = threading.local()  # os.spawn*'s command while it forks
        self.subprocess_done = False

    def note(self, key, command):
        if self.named >= _MAX_NAMED:
            self.unnamed += 1
            self.ch.meta({UNNAMED: self.unnamed})
            return
        self.named += 1
        self.ch.meta({key: command})

    # -- subprocess --------------------------------------------------------------------------------
    def install_subprocess(self):
        """After Popen has started a child: its pid and command line. Only once subprocess is
        imported (torch imports it); the shim never imports it for the program."""
        if self.subprocess_done:
            return
        subprocess = sys.modules.get("subprocess")
        popen = getattr(subprocess, "Popen", None) if subprocess is not None else None
        if popen is None or not hasattr(popen, "_execute_child"):
            return
        self.subprocess_done = True

        def started(process, args, executable=None, *rest):
            pid = getattr(process, "pid", None)
            if isinstance(pid, int) and pid > 0:
                # _execute_child(args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo,
                # creationflags, shell, ...): the same order in every Python 3
                shell = bool(rest[7]) if len(rest) > 7 else False
                self.note(f"{META_PREFIX}{pid}", command_text(args, shell))

        popen._execute_child = then(popen._execute_child, self.guard, "noting the program's child processes", started)

    # -- os ----------------------------------------------------------------------------------------
    def install_os(self):
        what = "noting the program's child processes"
        if callable(getattr(os, "fork", None)):
            os.fork = returned(os.fork, self.guard, what, self._forked)
        for name in ("posix_spawn", "posix_spawnp"):
            if callable(getattr(os, name, None)):
                setattr(os, name, returned(getattr(os, name), self.guard, what, self._spawned))
        if callable(getattr(os, "system", None)):
            os.system = first(os.system, self.guard, what, self._shell, lambda: None)
        # os.spawnl* call these through the module; they fork, then exec `args` in the child
        for name in ("spawnv", "spawnve", "spawnvp", "spawnvpe"):
            if callable(getattr(os, name, None)):
                setattr(os, name, first(getattr(os, name), self.guard, what, self._spawning, self._spawned_done))

    def _forked(self, pid, *args):
        if not isinstance(pid, int) or pid <= 0:
            return  # the child (after_fork made it quiet), or nothing started
        command = getattr(self.spawning, "command", None)
        if command is not None:
            self.note(f"{META_PREFIX}{pid}", command)
        else:
            self.note(f"{FORK_PREFIX}{pid}", command_text(getattr(sys, "orig_argv", sys.argv)))

    def _spawned(self, pid, path=None, argv=(), *rest):
        if isinstance(pid, int) and pid > 0:
            self.note(f"{META_PREFIX}{pid}", command_text(argv if argv else [path]))

    def _shell(self, command=None, *rest):
        self.shells += 1
        self.note(f"{SHELL_PREFIX}{self.shells}", command_text([command], shell=True))

    def _spawning(self, mode=None, file=None, args=(), *rest):
        self.spawning.command = command_text(args if args else [file])

    def _spawned_done(self):
        self.spawning.command = None
