#pragma once
// The shim's marks of each module call as Python builtins of this library's (issue 23). The shim's
// Module.__call__ wrapper calls `enter(module)` and `exit(id)` around every module call of the
// program; as ctypes calls, with the module's id looked up in a Python dict and checked through
// its weak reference, they were most of what module tracking cost (py-spy on the H200: 136 of 184
// samples). As builtins (METH_O, made through CPython's C API found with dlsym, as
// python_frames.cpp does) they are one C call each, and the id lookup is a hash map here.
//
//   enter(module)        the module's id after marking its call open on this thread (pass 0: the
//                        tracker tells forward from recompute), or None for a module not remembered
//   exit(id)             the call of module `id` has returned (or raised) on this thread
//   remember(module, id) the shim named the module `id`
//   forget(address)      the module that lived at id(module) == address is gone (its weak
//                        reference's callback), so that no later object at that address is taken for it
//   call_descriptor(cls, original, fallback, flags, flag)
//                        Module.__call__ itself in C: a method descriptor of `cls` that marks each call
//                        of a remembered module around `original(module, *args, **kwargs)`, hands a
//                        module not remembered yet to `fallback` (the shim's Python wrapper, which names
//                        it), and calls the original unmarked while flags[flag] is True (torch.compiler's
//                        flag for a graph traced or exported for real). Read from the class
//                        (`Module.__call__`) it is the Python wrapper, which dynamo traces; read from a
//                        module (`module.__call__`, `super().__call__` in a subclass's own __call__, as
//                        transformers' decoder layers do) it is a bound method of itself, whose
//                        attributes are the Python wrapper's. No Python frame of ours in a call, in the
//                        program's tracebacks or in the Python stacks of what it allocates (the Python
//                        wrapper cost GPT-2 about 1 % of an H100 step). A module called again directly
//                        inside its own marked call (torch.compile's OptimizedModule calling its
//                        original) is marked once. The same object each time; None where CPython's API
//                        lacks a piece.
//   call_pass_through(flag) while True, that descriptor calls the original unmarked
//
// None of them raises into the program: a wrong argument is ignored. The map is read and written
// with the GIL held (every caller is Python), and holds no reference to any module.

namespace sawtooth::tracker {

// Appends the six builtins, in the order above, to `list` (a Python list; the GIL is held). False
// when CPython's API is not found in this process.
bool appendModuleBuiltins(void* list);

}  // namespace sawtooth::tracker
