// libFuzzer target: a line of a recorded program's source, as the ladder's bf16 rung reads it
// (the file is the user's, read from the disk a recording names: any bytes).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/analysis/ladder_input.h"
#include "core/analysis/python_line.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sawtooth;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  (void)autocastOpOfSourceLine(line);
  if (const auto before = blocksBeforeFloat32Op(line); before && (*before < 0 || static_cast<size_t>(*before) > size))
    std::abort();  // each block is an op of the line: never more than its bytes
  if (const auto op = firstFloat32Op(line); op && (op->empty() || op->size() > size))
    std::abort();  // a name the line spells ("float" for .to(torch.float32), "pow" for **)
  return 0;
}
