"""The shim is a guest in the program: nothing it does may raise into the program, keep the
program's objects alive, or change what the program computes.

Guard runs the shim's own work (a hook body, the part of a wrapper before and after the program's
function) so that an exception becomes one notice per place for the user and never reaches the
program. The program's own calls are never inside a guard: what they raise is the program's.

While torch.compile traces a function (dynamo), every hook of ours returns at once: dynamo would
otherwise trace our sockets and clocks into the program's graph, break it, or refuse it under
fullgraph=True.

Identity tables (Identities) remember the program's objects by id() while they live, without
holding them: an entry leaves with its object (a weak reference's callback), so a dropped model
or optimizer is freed as it would be unrecorded, and an id() that CPython reuses for a new object
starts a new entry.
"""
import sys
import weakref


def _compiling_probe(torch):
    """torch.compiler.is_compiling, or dynamo's own on an older torch. The name torch._dynamo is
    only read once the program has imported dynamo: torch imports it lazily on first access, and
    that import (seconds, and memory) would be ours, not the program's. Without dynamo nothing
    can be compiling."""
    compiler = sys.modules.get("torch.compiler") or getattr(torch, "compiler", None)
    probe = getattr(compiler, "is_compiling", None)
    if callable(probe):
        return probe

    def dynamo_compiling():
        dynamo = sys.modules.get("torch._dynamo")
        check = getattr(dynamo, "is_compiling", None) if dynamo is not None else None
        return bool(check()) if callable(check) else False
    return dynamo_compiling


class Guard:
    def __init__(self, channel, torch=None):
        self.ch = channel
        self.failed = set()
        self.compiling = _compiling_probe(torch) if torch is not None else (lambda: False)

    def use_torch(self, torch):
        self.compiling = _compiling_probe(torch)

    def report(self, where, error):
        """One notice per place; a failure to tell is swallowed too."""
        if where in self.failed:
            return
        self.failed.add(where)
        try:
            self.ch.notice("warning", f"{where} failed ({type(error).__name__}: {error}); the program carries on, "
                                      "partly recorded")
        except Exception:
            pass

    def call(self, where, fn, *args, **kwargs):
        try:
            if self.compiling():
                return None
            return fn(*args, **kwargs)
        except Exception as e:  # never the program's problem (KeyboardInterrupt and SystemExit are the program's)
            self.report(where, e)
            return None

    def wrap(self, where, fn):
        """fn as a hook body: guarded, skipped while dynamo traces, and returning None whatever fn
        returns (a hook that returns something changes the program's arguments)."""
        call = self.call

        def guarded(*args, **kwargs):
            call(where, fn, *args, **kwargs)
        guarded.__sawtooth_guarded__ = fn
        return guarded


class Identities:
    """id(obj) -> value while obj lives; holds no reference to obj."""

    def __init__(self):
        self._entries = {}  # id -> (weak reference or None, value)
        self.on_gone = None  # called with id(obj) once obj is gone (never when it has no weak reference)

    def get(self, obj):
        entry = self._entries.get(id(obj))
        if entry is None:
            return None
        ref, value = entry
        if ref is not None and ref() is not obj:  # a new object at a reused address
            del self._entries[id(obj)]
            return None
        return value

    def add(self, obj, value):
        key = id(obj)
        entries = self._entries

        def gone(ref, key=key, identities=self):
            entry = entries.get(key)
            if entry is not None and entry[0] is ref:
                del entries[key]
                if identities.on_gone is not None:
                    identities.on_gone(key)
        try:
            ref = weakref.ref(obj, gone)
        except TypeError:  # an object without weak references: remembered by id alone
            ref = None
        entries[key] = (ref, value)
        return value

    def __len__(self):
        return len(self._entries)

    def __contains__(self, obj):
        return self.get(obj) is not None


# Wrappers of the program's functions are compiled under a file name that Python's warnings
# machinery skips when it counts a warning's stacklevel (as it skips importlib's frames: the name
# holds "importlib" and "_bootstrap"), so that a warning PyTorch raises inside a wrapped function
# (stacklevel=N) still names the program's line, and is shown as often as it would be unrecorded.
# A traceback through a wrapped function shows this frame.
_WRAPPERS_FILE = "<sawtooth shim wrapper, skipped by warnings like importlib._bootstrap>"
_WRAPPERS_SOURCE = '''
def around(fn, call, what, before, after):
    def wrapper(*args, **kwargs):
        call(what, before)
        try:
            return fn(*args, **kwargs)
        finally:
            call(what, after)
    return wrapper


def then(fn, call, what, after):
    def wrapper(*args, **kwargs):
        result = fn(*args, **kwargs)
        call(what, after, *args)
        return result
    return wrapper


def returned(fn, call, what, after):
    def wrapper(*args, **kwargs):
        result = fn(*args, **kwargs)
        call(what, after, result, *args)
        return result
    return wrapper


def first(fn, call, what, before, after):
    def wrapper(*args, **kwargs):
        call(what, before, *args)
        try:
            return fn(*args, **kwargs)
        finally:
            call(what, after)
    return wrapper


def during(fn, call, what, began, ended):
    def wrapper(*args, **kwargs):
        opened = call(what, began)
        try:
            return fn(*args, **kwargs)
        finally:
            if opened:
                call(what, ended)
    return wrapper


def arguments(fn, call, what, convert):
    def wrapper(function, *args, **kwargs):
        return fn(call(what, convert, function) or function, *args, **kwargs)
    return wrapper


def module_call(call, tracker, compiling, report, what):
    enters, exits = tracker.call_enters, tracker.call_exits

    def __call__(self, *args, **kwargs):
        if compiling() or tracker.paused or tracker.removed:
            return call(self, *args, **kwargs)
        marks = tracker.marks
        if marks is not None:
            ident = marks.enter(self)
            if ident is not None:
                try:
                    return call(self, *args, **kwargs)
                finally:
                    marks.exit(ident)
        try:
            marked = enters(self)
        except Exception as e:
            report(what, e)
            marked = None
        if marked is None:
            return call(self, *args, **kwargs)
        try:
            result = call(self, *args, **kwargs)
        except BaseException:
            try:
                exits(marked, None, True)
            except Exception as e:
                report(what, e)
            raise
        try:
            exits(marked, result, False)
        except Exception as e:
            report(what, e)
        return result
    return __call__
'''
_wrappers = {}
exec(compile(_WRAPPERS_SOURCE, _WRAPPERS_FILE, "exec"), _wrappers)


def _finish(wrapper, fn):
    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(wrapper, attribute, getattr(fn, attribute))
        except (AttributeError, TypeError):
            pass
    wrapper.__wrapped__ = fn
    wrapper.__sawtooth_wrapped__ = fn
    return wrapper


def around(fn, guard, what, before, after):
    """fn with before() and after() of ours around it (guarded; what fn raises is the program's)."""
    return _finish(_wrappers["around"](fn, guard.call, what, before, after), fn)


def then(fn, guard, what, after):
    """fn, then after(*fn's arguments) of ours."""
    return _finish(_wrappers["then"](fn, guard.call, what, after), fn)


def returned(fn, guard, what, after):
    """fn, then after(fn's result, *fn's arguments) of ours."""
    return _finish(_wrappers["returned"](fn, guard.call, what, after), fn)


def first(fn, guard, what, before, after):
    """before(*fn's arguments) of ours, fn, then after() of ours (also when fn raises)."""
    return _finish(_wrappers["first"](fn, guard.call, what, before, after), fn)


def during(fn, guard, what, began, ended):
    """fn with began() of ours before it and, when began() returned True, ended() after it."""
    return _finish(_wrappers["during"](fn, guard.call, what, began, ended), fn)


def arguments(fn, guard, what, convert):
    """fn called with its first argument replaced by convert(it) (kept when convert fails)."""
    return _finish(_wrappers["arguments"](fn, guard.call, what, convert), fn)


def module_call_wrapper(original, tracker):
    """Module.__call__ for modules.py: tracker.call_enters(module) before the original and
    tracker.call_exits(marked, output, raised) after it, both guarded; every call passes straight
    through while dynamo traces, while paused, and once removed. Where the tracker library runs,
    a module it knows is marked by its builtins alone (tracker.marks: they never raise)."""
    g = tracker.guard
    return _finish(_wrappers["module_call"](original, tracker, g.compiling, g.report, "tracking the program's modules"),
                   original)
