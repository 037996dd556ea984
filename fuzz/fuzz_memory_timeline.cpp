// libFuzzer target: the torch.profiler memory-timeline importer (both JSON forms), then everything
// the programs do with an imported trace.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io/memory_timeline_importer.h"
#include "core/io/read_limits.h"
#include "fuzz/exercise_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sawtooth;
  // With and without simdjson's padding in the capacity, as importProfilerTrace's target does.
  std::string json(reinterpret_cast<const char*>(data), size);
  if (size % 2 == 0) json.reserve(size + 64);
  // The amplification limit from 4096 events on (not 2^20), so that small inputs reach it.
  ReadLimits limits;
  limits.amplification_floor = 4096;
  ReadBudget budget(limits);
  auto trace = importMemoryTimeline(json, nullptr, &budget);
  if (!trace) return 0;
  fuzz::checkAmplification(*trace, size, limits.amplification_floor);
  fuzz::exerciseTrace(*trace);
  return 0;
}
