#include "core/model/stack_table.h"

#include <algorithm>
#include <cstring>

namespace sawtooth {
namespace {

constexpr size_t kBlockBytes = size_t{64} << 10;

uint64_t frameHash(uint32_t name, uint32_t file, int64_t line) {
  const uint64_t words[2] = {(uint64_t{name} << 32) | file, static_cast<uint64_t>(line)};
  return keyedHash(words, sizeof words);
}

}  // namespace

StackTable::StackTable(const StackTable& other)
    : frames_(other.frames_),
      frame_index_(other.frame_index_),
      stack_frames_(other.stack_frames_),
      stack_offsets_(other.stack_offsets_),
      stack_lengths_(other.stack_lengths_),
      stack_index_(other.stack_index_) {
  strings_.reserve(other.strings_.size());
  for (std::string_view text : other.strings_) internString(text);
}

StackTable& StackTable::operator=(const StackTable& other) {
  if (this != &other) *this = StackTable(other);
  return *this;
}

uint32_t StackTable::internString(std::string_view text) {
  const uint64_t h = keyedHash(text);
  const uint32_t found = string_index_.find(h, [&](uint32_t id) { return strings_[id] == text; });
  if (found != FlatIndex::kNone) return found;
  char* at = nullptr;
  if (text.size() > kBlockBytes / 4) {
    // A long string gets a block of its own, leaving the current block's room for short ones.
    blocks_.emplace_back(new char[text.size()]);
    block_bytes_ += text.size();
    at = blocks_.back().get();
    if (blocks_.size() > 1) std::swap(blocks_.back(), blocks_[blocks_.size() - 2]);
  } else {
    if (blocks_.empty() || block_size_ - block_used_ < text.size()) {  // an empty first string needs a block too
      blocks_.emplace_back(new char[kBlockBytes]);
      block_bytes_ += kBlockBytes;
      block_used_ = 0;
      block_size_ = kBlockBytes;
    }
    at = blocks_.back().get() + block_used_;
    block_used_ += text.size();
  }
  if (!text.empty()) std::memcpy(at, text.data(), text.size());
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(at, text.size());
  string_index_.insert(h, id);
  return id;
}

uint32_t StackTable::internFrame(std::string_view name, std::string_view file, int64_t line) {
  const uint32_t name_id = internString(name);
  return internFrameIds(name_id, internString(file), line);
}

uint32_t StackTable::internFrameIds(uint32_t name, uint32_t file, int64_t line) {
  const uint64_t h = frameHash(name, file, line);
  const uint32_t found = frame_index_.find(h, [&](uint32_t id) {
    const FrameKey& k = frames_[id];
    return k.name == name && k.file == file && k.line == line;
  });
  if (found != FlatIndex::kNone) return found;
  const auto id = static_cast<uint32_t>(frames_.size());
  frames_.push_back(FrameKey{name, file, line});
  frame_index_.insert(h, id);
  return id;
}

uint32_t StackTable::internStack(std::span<const uint32_t> frame_ids) {
  const uint64_t h = keyedHash(frame_ids.data(), frame_ids.size_bytes());
  const uint32_t found = stack_index_.find(h, [&](uint32_t id) {
    return stack_lengths_[id] == frame_ids.size() &&
           std::equal(frame_ids.begin(), frame_ids.end(), stack_frames_.begin() + stack_offsets_[id]);
  });
  if (found != FlatIndex::kNone) return found;
  const auto id = static_cast<uint32_t>(stack_offsets_.size());
  stack_offsets_.push_back(static_cast<uint32_t>(stack_frames_.size()));
  stack_lengths_.push_back(static_cast<uint32_t>(frame_ids.size()));
  stack_frames_.insert(stack_frames_.end(), frame_ids.begin(), frame_ids.end());
  stack_index_.insert(h, id);
  return id;
}

FrameView StackTable::frame(uint32_t id) const {
  if (id >= frames_.size()) return {};
  const FrameKey& k = frames_[id];
  return FrameView{strings_[k.name], strings_[k.file], k.line};
}

std::span<const uint32_t> StackTable::stack(uint32_t id) const {
  if (id >= stack_offsets_.size()) return {};
  return {stack_frames_.data() + stack_offsets_[id], stack_lengths_[id]};
}

size_t StackTable::bytesResident() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return block_bytes_ + bytes(blocks_) + bytes(strings_) + string_index_.bytesResident() +
         bytes(frames_) + frame_index_.bytesResident() + bytes(stack_frames_) + bytes(stack_offsets_) +
         bytes(stack_lengths_) + stack_index_.bytesResident();
}

}  // namespace sawtooth
