#include "core/io/source_lines.h"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace sawtooth {
namespace {

std::vector<std::string> readLines(const std::string& path) {
  std::vector<std::string> lines;
  if (!path.ends_with(".py")) return lines;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || ec) return lines;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxSourceFileBytes) return lines;
  std::ifstream in(path, std::ios::binary);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(std::move(l));
  }
  return lines;
}

}  // namespace

std::optional<std::string> SourceLines::line(std::string_view file, uint32_t line) {
  auto it = files_.find(std::string(file));
  if (it == files_.end()) {
    if (files_.size() >= kMaxSourceFiles) return std::nullopt;
    it = files_.emplace(std::string(file), readLines(std::string(file))).first;
  }
  if (line == 0 || line > it->second.size()) return std::nullopt;
  return it->second[line - 1];
}

}  // namespace sawtooth
