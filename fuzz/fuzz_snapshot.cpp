// libFuzzer target: the data-only unpickler and the PyTorch snapshot importer, then everything the
// programs do with an imported trace. Any input must give an error value or a trace, never a crash,
// a sanitizer report, a hang or unbounded memory.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/exercise_trace.h"
#include "core/io/pickle_document.h"
#include "core/io/pickle_text.h"
#include "core/io/snapshot_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sawtooth;
  auto doc = pickle::parse(std::string(reinterpret_cast<const char*>(data), size));
  if (!doc) return 0;
  (void)pickle::toText(*doc, doc->root());
  auto trace = importSnapshot(*doc);
  if (trace) fuzz::exerciseTrace(*trace);
  return 0;
}
