#pragma once
// One recorded process' frames, stacks and names, as its connections define them. A frame's text
// is kept once per process however many stacks and connections name it, a stack holds shared
// frames (16 bytes per frame), and every table has its budget (ingest_limits.h): a definition
// beyond it is dropped and counted — a frame becomes a placeholder, a stack none, a name "?" —
// so that a program sending 1 KB of stacks naming one long frame can no longer cost the recorder
// gigabytes (each stack used to copy every frame's text).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/model/stack_table.h"

namespace sawtooth::record {

using FramePtr = std::shared_ptr<const Frame>;
// A stack as records carry it (innermost frame first), shared by every record with it.
using StackFrames = std::vector<FramePtr>;

class InternedTables {
 public:
  InternedTables();

  // The frame with this text (cut to limits::kFrameTextBytes), or the placeholder when the text
  // budget is spent.
  FramePtr frame(std::string_view name, std::string_view file, int64_t line);
  // A stack of these frames, or nullptr (no stack) when the stack budgets are spent.
  std::shared_ptr<const StackFrames> stack(StackFrames frames);
  // The process-wide id of a name (phases, annotations, kernels); "?" when the budget is spent.
  uint32_t name(std::string_view text);
  const std::string& nameText(uint32_t id) const { return *names_.at(id); }
  size_t names() const { return names_.size(); }

  struct Dropped {
    uint64_t frames = 0, stacks = 0, names = 0;
  };
  const Dropped& dropped() const { return dropped_; }
  size_t textBytes() const { return text_bytes_; }
  size_t stackTextBytes() const { return stack_text_bytes_; }

 private:
  struct FrameKey {
    std::string_view name, file;
    int64_t line;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const;
  };
  std::unordered_map<FrameKey, FramePtr, FrameKeyHash> frames_;  // keys view the frames' own text
  FramePtr dropped_frame_;
  std::vector<std::unique_ptr<const std::string>> names_;  // on the heap: the keys below view them
  std::unordered_map<std::string_view, uint32_t> name_ids_;
  size_t text_bytes_ = 0;
  size_t stack_text_bytes_ = 0;
  size_t stack_refs_ = 0;
  Dropped dropped_;
};

}  // namespace sawtooth::record
