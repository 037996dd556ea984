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
  // Its size and one byte more: a file grown since is not read.
  std::string text(static_cast<size_t>(size) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  const auto got = static_cast<size_t>(in.gcount());
  if (got > size) return lines;
  text.resize(got);
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    begin = end + 1;
  }
  return lines;
}

}  // namespace

std::optional<std::string> SourceLines::line(std::string_view file, uint32_t line) {
  auto it = files_.find(std::string(file));
  if (it == files_.end()) {
    if (files_.size() >= kMaxSourceFiles || bytes_ >= kMaxSourceBytes) return std::nullopt;
    it = files_.emplace(std::string(file), readLines(std::string(file))).first;
    for (const std::string& l : it->second) bytes_ += l.size() + 1;
  }
  if (line == 0 || line > it->second.size()) return std::nullopt;
  return it->second[line - 1];
}

}  // namespace sawtooth
