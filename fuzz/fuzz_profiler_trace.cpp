// libFuzzer target: the torch.profiler Chrome-trace importer (simdjson), then everything the
// programs do with an imported trace.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/exercise_trace.h"
#include "core/io/profiler_trace_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sawtooth;
  // Without spare capacity the importer copies into a padded buffer, as it does for callers that
  // did not read the file with readFileBytes; both paths get exercised across inputs.
  std::string json(reinterpret_cast<const char*>(data), size);
  if (size % 2 == 0) json.reserve(size + 64);
  auto trace = importProfilerTrace(json);
  if (trace) fuzz::exerciseTrace(*trace);
  return 0;
}
