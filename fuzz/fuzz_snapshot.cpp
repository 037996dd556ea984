// libFuzzer target: the PyTorch snapshot readers, then everything the programs do with an
// imported trace. The streaming decoder and the generic reader are also each other's oracle: on
// any input the decoder reads itself, the two must give the same trace or the same error.
// Any input must give an error value or a trace, never a crash, a sanitizer report, a hang or
// unbounded memory.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/io/pickle_document.h"
#include "core/io/pickle_text.h"
#include "core/io/snapshot_decoder.h"
#include "core/io/snapshot_importer.h"
#include "core/io/trace_loader.h"
#include "fuzz/exercise_trace.h"

namespace {

using namespace sawtooth;

ReadLimits fuzzLimits() {
  ReadLimits limits;
  limits.max_memory = uint64_t{512} << 20;
  limits.amplification_floor = 4096;  // reached by small inputs
  return limits;
}

[[noreturn]] void disagree(const std::string& what) {
  std::fprintf(stderr, "decoder and generic reader disagree: %s\n", what.c_str());
  std::abort();
}

void compare(const Trace& a, const Trace& b) {
  if (a.events.size() != b.events.size()) disagree("event counts");
  for (size_t i = 0; i < a.events.size(); ++i) {
    const Event x = a.events.at(i), y = b.events.at(i);
    if (x.t_ns != y.t_ns || x.device != y.device || x.action != y.action || x.addr != y.addr || x.size != y.size ||
        x.stream != y.stream || x.phase != y.phase)
      disagree("event " + std::to_string(i));
    const auto fa = a.stacks.stack(x.stack), fb = b.stacks.stack(y.stack);
    if (fa.size() != fb.size()) disagree("stack depth of event " + std::to_string(i));
    for (size_t k = 0; k < fa.size(); ++k) {
      const FrameView p = a.stacks.frame(fa[k]), q = b.stacks.frame(fb[k]);
      if (p.name != q.name || p.file != q.file || p.line != q.line) disagree("a frame of event " + std::to_string(i));
    }
  }
  if (a.meta != b.meta || a.phases.size() != b.phases.size() || a.devices.size() != b.devices.size())
    disagree("meta, phases or devices");
  for (size_t d = 0; d < a.devices.size(); ++d)
    if (a.devices[d].device != b.devices[d].device || a.devices[d].baseline_allocated != b.devices[d].baseline_allocated ||
        a.devices[d].baseline_reserved != b.devices[d].baseline_reserved)
      disagree("device " + std::to_string(d));
}

bool isLimit(const std::string& message) { return message.find("limit") != std::string::npos; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto owner = std::make_shared<const std::string>(reinterpret_cast<const char*>(data), size);
  const ReadLimits limits = fuzzLimits();

  ReadBudget generic_budget(limits);
  Result<Trace> generic = Error{""};
  if (auto doc = pickle::parse(owner, *owner, pickle::ParseOptions{nullptr, &generic_budget, nullptr})) {
    (void)pickle::toText(*doc, doc->root());
    generic = importSnapshot(*doc, generic_budget, nullptr);
  } else {
    generic = doc.error();
  }
  ReadBudget decoder_budget(limits);
  bool unrecognized = false;
  auto decoded = decodeSnapshotOnly(owner, *owner, decoder_budget, nullptr, unrecognized);
  if (!unrecognized) {
    if (decoded.ok() && generic.ok()) compare(*decoded, *generic);
    else if (decoded.ok() != generic.ok() && !isLimit(decoded.ok() ? generic.error().message : decoded.error().message))
      disagree(decoded.ok() ? "only the generic reader refused: " + generic.error().message
                            : "only the decoder refused: " + decoded.error().message);
    else if (!decoded.ok() && decoded.error().message != generic.error().message && !isLimit(decoded.error().message) &&
             !isLimit(generic.error().message))
      disagree("errors: " + decoded.error().message + " / " + generic.error().message);
  }
  auto trace = loadTraceFromBytes(*owner, "fuzz", nullptr, limits);
  if (!trace) return 0;
  fuzz::checkAmplification(*trace, size, limits.amplification_floor);
  fuzz::exerciseTrace(*trace);
  return 0;
}
