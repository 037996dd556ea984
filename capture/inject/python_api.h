#pragma once
// CPython's C API as the process that loaded the tracker library has it: this library has no
// Python headers of its own, and is loaded only into Python programs (python_frames.cpp and
// module_builtins.cpp find what they call with this).

#include <dlfcn.h>

namespace sawtooth::tracker {

// `f` set to the running process' `symbol`, or null when it has none.
template <typename F>
void findPythonSymbol(F& f, const char* symbol) {
  f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, symbol));
}

}  // namespace sawtooth::tracker
