#pragma once
// Python frames named without torch's symbolizer: co_name, co_filename and PyCode_Addr2Line(code,
// lasti), as torch names them, through CPython's C API found in the running process (dlsym: this
// library is loaded into a Python program and has no Python headers of its own).
//
// Why not torch::symbolize: it looks up torch._inductor.codecache to map compiled code back to its
// source, and torch's lazy submodules import inductor (and dynamo) for the lookup. From the
// tracker's thread that import races the program's own imports, and on the program's thread it
// changes what the program sees (sys.modules). A process that used CUDA has the shim import it once
// on its thread (torch_hooks.py) and then uses torch's; a CPU process names its frames here, and a
// frame in code torch.compile generated is named as the generated file's line.

#include <cstdint>
#include <string>
#include <vector>

namespace sawtooth::tracker {

struct PythonFrameName {
  std::string name;
  std::string file;
  int32_t line = 0;
};

// Each (code object, lasti) named, in order; takes the GIL. False when no Python runs here (then
// `out` is left empty).
bool namePythonFrames(const std::vector<std::pair<const void*, int>>& frames, std::vector<PythonFrameName>& out);

}  // namespace sawtooth::tracker
