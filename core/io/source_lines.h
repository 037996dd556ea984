#pragma once
// Lines of the Python files a recording's stacks name, read on this machine for the ladder's bf16
// rung (which ops a line calls). A file is data: only regular files named *.py, each at most
// kMaxSourceFileBytes, at most kMaxSourceFiles of them and kMaxSourceBytes in all kept; a file that
// cannot be read says nothing.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sawtooth {

inline constexpr size_t kMaxSourceFileBytes = 8u << 20;
inline constexpr size_t kMaxSourceFiles = 512;
inline constexpr size_t kMaxSourceBytes = 64u << 20;

class SourceLines {
 public:
  // The line (1-based) without its line ending; nullopt when the file is not readable here, not a
  // .py file, too large, or shorter than `line`.
  std::optional<std::string> line(std::string_view file, uint32_t line);

 private:
  // A file's lines; empty for a file that could not be read (remembered, not retried).
  std::unordered_map<std::string, std::vector<std::string>> files_;
  size_t bytes_ = 0;  // the lines kept, in all
};

}  // namespace sawtooth
