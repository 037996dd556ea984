#include "capture/ingest/interned_tables.h"

#include <functional>

#include "capture/ingest/ingest_limits.h"

namespace sawtooth::record {
namespace {

constexpr std::string_view kDroppedFrame = "(frame not kept: the recording's budget for frame text is spent)";
constexpr std::string_view kDroppedName = "?";

std::string_view cut(std::string_view text) { return text.substr(0, limits::kFrameTextBytes); }

}  // namespace

size_t InternedTables::FrameKeyHash::operator()(const FrameKey& k) const {
  const size_t a = std::hash<std::string_view>{}(k.name), b = std::hash<std::string_view>{}(k.file);
  return a ^ (b * 0x9e3779b97f4a7c15ull) ^ (static_cast<size_t>(k.line) * 0xc2b2ae3d27d4eb4full);
}

InternedTables::InternedTables()
    : dropped_frame_(std::make_shared<const Frame>(Frame{std::string(kDroppedFrame), std::string(), 0})) {
  (void)name(kDroppedName);  // id 0: what a name beyond the budget becomes
}

FramePtr InternedTables::frame(std::string_view name, std::string_view file, int64_t line) {
  name = cut(name);
  file = cut(file);
  if (auto it = frames_.find(FrameKey{name, file, line}); it != frames_.end()) return it->second;
  const size_t bytes = name.size() + file.size() + sizeof(Frame);
  if (text_bytes_ + bytes > limits::kTextBytes) {
    ++dropped_.frames;
    return dropped_frame_;
  }
  text_bytes_ += bytes;
  auto f = std::make_shared<const Frame>(Frame{std::string(name), std::string(file), line});
  frames_.emplace(FrameKey{f->name, f->file, f->line}, f);
  return f;
}

std::shared_ptr<const StackFrames> InternedTables::stack(StackFrames frames) {
  size_t text = 0;
  for (const FramePtr& f : frames) text += f->name.size() + f->file.size() + sizeof(Frame);
  if (stack_refs_ + frames.size() > limits::kStackFrameRefs || stack_text_bytes_ + text > limits::kStackTextBytes) {
    ++dropped_.stacks;
    return nullptr;
  }
  stack_refs_ += frames.size();
  stack_text_bytes_ += text;
  return std::make_shared<const StackFrames>(std::move(frames));
}

uint32_t InternedTables::name(std::string_view text) {
  text = cut(text);
  if (auto it = name_ids_.find(text); it != name_ids_.end()) return it->second;
  if (text_bytes_ + text.size() + sizeof(std::string) > limits::kTextBytes) {
    ++dropped_.names;
    return 0;
  }
  text_bytes_ += text.size() + sizeof(std::string);
  const auto id = static_cast<uint32_t>(names_.size());
  names_.push_back(std::make_unique<const std::string>(text));
  name_ids_.emplace(*names_.back(), id);
  return id;
}

}  // namespace sawtooth::record
