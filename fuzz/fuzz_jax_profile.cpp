// libFuzzer target: the protobuf wire reader and the JAX device memory profile (pprof) importer,
// then everything the programs do with an imported trace.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/io/jax_profile_importer.h"
#include "core/io/protobuf_wire.h"
#include "core/io/read_limits.h"
#include "fuzz/exercise_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sawtooth;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // The wire reader alone, walking nested length-delimited fields two levels down.
  protobuf::WireReader top(bytes);
  protobuf::Field field;
  std::vector<uint64_t> values;
  while (top.next(field)) {
    if (field.type != protobuf::WireType::Bytes) continue;
    protobuf::appendVarints(field, values);
    protobuf::WireReader inner(field.bytes);
    protobuf::Field nested;
    while (inner.next(nested)) protobuf::appendVarints(nested, values);
  }
  // One sample's count may stand for millions of buffers (a few bytes make 1.5 M events): under
  // a small memory limit the importer refuses those, so that exercising what it does read stays
  // within the fuzzer's time limit per input (16 MB still let 2.3 KB make 262 k events, whose
  // exports took 8 s under the sanitizers; 4 MB holds about 65 k).
  // The amplification limit from 4096 events on (not 2^20), so that small inputs reach it: a
  // sample's count, a location's lines listed again and again.
  ReadLimits limits;
  limits.max_memory = uint64_t{4} << 20;
  limits.amplification_floor = 4096;
  ReadBudget budget(limits);
  auto trace = importJaxMemoryProfile(bytes, "", nullptr, &budget);
  if (!trace) return 0;
  fuzz::checkAmplification(*trace, size, limits.amplification_floor);
  fuzz::exerciseTrace(*trace);
  return 0;
}
