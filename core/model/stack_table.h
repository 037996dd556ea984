#pragma once
// Interned call stacks: each distinct string, each distinct frame (name, file, line) and each
// distinct sequence of frames is stored once. Snapshots repeat the same 60-frame stacks thousands
// of times, and thousands of frames share one file name; events keep a 4-byte stack id, frames
// keep string ids, so a string shared by many frames costs its bytes once.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/flat_index.h"

namespace sawtooth {

// A frame that owns its strings (the recorder's symbolizer hands these over).
struct Frame {
  std::string name;
  std::string file;
  int64_t line = 0;
};

// A frame as the table stores it: views into the table's strings, valid as long as the table.
struct FrameView {
  std::string_view name;
  std::string_view file;
  int64_t line = 0;
};

class StackTable {
 public:
  StackTable() = default;
  StackTable(StackTable&&) noexcept = default;
  StackTable& operator=(StackTable&&) noexcept = default;
  // A copy has its own string blocks (the views are rebuilt); ids stay the same.
  StackTable(const StackTable& other);
  StackTable& operator=(const StackTable& other);

  uint32_t internString(std::string_view text);
  uint32_t internFrame(std::string_view name, std::string_view file, int64_t line);
  // The same, for strings already interned (ids from internString).
  uint32_t internFrameIds(uint32_t name, uint32_t file, int64_t line);
  uint32_t internStack(std::span<const uint32_t> frame_ids);

  size_t stringCount() const { return strings_.size(); }
  size_t frameCount() const { return frames_.size(); }
  size_t stackCount() const { return stack_offsets_.size(); }
  // Frames of all the stacks together.
  size_t stackFrameCount() const { return stack_frames_.size(); }
  std::string_view string(uint32_t id) const { return id < strings_.size() ? strings_[id] : std::string_view(); }
  FrameView frame(uint32_t id) const;
  // Innermost frame first, as PyTorch writes them.
  std::span<const uint32_t> stack(uint32_t id) const;

  // The longest run of slots any of its hash indexes may walk (the fuzzers check that no file
  // makes it long: keys that collide).
  size_t longestIndexRun() const {
    return std::max({string_index_.longestRun(), frame_index_.longestRun(), stack_index_.longestRun()});
  }
  // Bytes the table holds on the heap (the import's memory budget counts them).
  size_t bytesResident() const;

 private:
  struct FrameKey {
    uint32_t name;
    uint32_t file;
    int64_t line;
  };
  // String bytes live in blocks that never move, so views into them stay valid as the table grows.
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  size_t block_bytes_ = 0;
  std::vector<std::string_view> strings_;
  FlatIndex string_index_;

  std::vector<FrameKey> frames_;
  FlatIndex frame_index_;

  std::vector<uint32_t> stack_frames_;   // all stacks, concatenated
  std::vector<uint32_t> stack_offsets_;  // start of stack i in stack_frames_
  std::vector<uint32_t> stack_lengths_;
  FlatIndex stack_index_;
};

}  // namespace sawtooth
