#include "core/model/stack_table.h"

#include <cstring>

namespace sawtooth {

uint32_t StackTable::internFrame(std::string_view name, std::string_view file, int64_t line) {
  // Length-prefixed so that no name/file split can collide with another.
  const auto name_size = static_cast<uint32_t>(name.size());
  std::string key;
  key.reserve(sizeof name_size + name.size() + file.size() + sizeof line);
  key.append(reinterpret_cast<const char*>(&name_size), sizeof name_size);
  key.append(name).append(file);
  key.append(reinterpret_cast<const char*>(&line), sizeof line);
  auto [it, inserted] = frame_index_.try_emplace(std::move(key), static_cast<uint32_t>(frames_.size()));
  if (inserted) frames_.push_back(Frame{std::string(name), std::string(file), line});
  return it->second;
}

uint32_t StackTable::internStack(std::span<const uint32_t> frame_ids) {
  std::string key(reinterpret_cast<const char*>(frame_ids.data()), frame_ids.size_bytes());
  auto [it, inserted] = stack_index_.try_emplace(std::move(key), static_cast<uint32_t>(stack_offsets_.size()));
  if (inserted) {
    stack_offsets_.push_back(static_cast<uint32_t>(stack_frames_.size()));
    stack_lengths_.push_back(static_cast<uint32_t>(frame_ids.size()));
    stack_frames_.insert(stack_frames_.end(), frame_ids.begin(), frame_ids.end());
  }
  return it->second;
}

std::span<const uint32_t> StackTable::stack(uint32_t id) const {
  if (id >= stack_offsets_.size()) return {};
  return {stack_frames_.data() + stack_offsets_[id], stack_lengths_[id]};
}

}  // namespace sawtooth
