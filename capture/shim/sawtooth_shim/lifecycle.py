"""The end of a recorded process: its last delivery at exit, at SIGTERM (after which the process
still dies by SIGTERM, as it would have) and after SIGINT's KeyboardInterrupt; nothing in a
forked child (its parent's connection is not its own)."""
import atexit
import os
import signal
import threading


class Lifecycle:
    def __init__(self, shim):
        self.shim = shim
        self.interrupted = False

    def install(self):
        atexit.register(self.final, "exit")
        if threading.current_thread() is threading.main_thread():
            if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                signal.signal(signal.SIGTERM, self._on_sigterm)
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, self._on_sigint)
        os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        try:
            self.shim.after_fork()
        except Exception:  # Python would print it on the child's stderr
            pass

    def final(self, reason):
        if reason == "exit" and self.interrupted:
            reason = "interrupted (SIGINT)"
        self.shim.final(reason)

    def _on_sigterm(self, signum, frame):
        # Handlers run on the main thread, the only one allowed to change a disposition; the last
        # delivery may run later on whichever thread holds the channel, and then dies by the default.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        self.shim.ch.when_free(self._die_by_sigterm)  # not from inside a send it interrupted

    def _die_by_sigterm(self):
        try:
            self.shim.final("killed by SIGTERM")
            self.shim.final_cupti("killed by SIGTERM")  # its atexit will not run either
        finally:
            os.kill(os.getpid(), signal.SIGTERM)

    def _on_sigint(self, signum, frame):
        self.interrupted = True
        signal.default_int_handler(signum, frame)
