#include "core/analysis/missing_stacks.h"

namespace sawtooth {

std::string missingStacksReason(const Trace& trace) {
  if (trace.stacks.frameCount() > 0) return {};
  const auto said = [&trace](const char* key) {
    const auto it = trace.meta.find(key);
    return it == trace.meta.end() ? std::string() : it->second;
  };
  if (const std::string note = said("stacks_note"); !note.empty()) return note;
  if (said("stacks") == "none") return "recorded with --stacks none";
  return {};
}

}  // namespace sawtooth
