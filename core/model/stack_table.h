#pragma once
// Interned call stacks: each distinct frame and each distinct sequence of frames is stored once.
// Snapshots repeat the same 60-frame stacks thousands of times; events keep a 4-byte stack id.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sawtooth {

struct Frame {
  std::string name;
  std::string file;
  int64_t line = 0;
};

class StackTable {
 public:
  uint32_t internFrame(std::string_view name, std::string_view file, int64_t line);
  uint32_t internStack(std::span<const uint32_t> frame_ids);

  size_t frameCount() const { return frames_.size(); }
  size_t stackCount() const { return stack_offsets_.size(); }
  const Frame& frame(uint32_t id) const { return frames_[id]; }
  // Innermost frame first, as PyTorch writes them.
  std::span<const uint32_t> stack(uint32_t id) const;

 private:
  std::vector<Frame> frames_;
  std::unordered_map<std::string, uint32_t> frame_index_;  // key: name length, name, file, line
  std::vector<uint32_t> stack_frames_;                     // all stacks, concatenated
  std::vector<uint32_t> stack_offsets_;                    // start of stack i in stack_frames_
  std::vector<uint32_t> stack_lengths_;
  std::unordered_map<std::string, uint32_t> stack_index_;  // key: the frame ids' bytes
};

}  // namespace sawtooth
