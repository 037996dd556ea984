#include "core/recording/rank_files.h"

#include <charconv>

namespace sawtooth::recording {
namespace {

constexpr std::string_view kExtension = ".sawtooth";
constexpr std::string_view kRank = ".rank";
constexpr size_t kMaxRankDigits = 6;

}  // namespace

std::optional<RankFileName> parseRankFileName(std::string_view name) {
  if (!name.ends_with(kExtension)) return std::nullopt;
  name.remove_suffix(kExtension.size());
  const size_t at = name.rfind(kRank);
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  const std::string_view digits = name.substr(at + kRank.size());
  if (digits.empty() || digits.size() > kMaxRankDigits) return std::nullopt;
  for (char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  int rank = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (ec != std::errc() || end != digits.data() + digits.size() || (digits.size() > 1 && digits[0] == '0'))
    return std::nullopt;
  return RankFileName{std::string(name.substr(0, at)), rank};
}

std::string rankFilePath(std::string_view out, int rank) {
  if (out.size() > kExtension.size() && out.ends_with(kExtension)) out.remove_suffix(kExtension.size());
  return std::string(out) + std::string(kRank) + std::to_string(rank) + std::string(kExtension);
}

}  // namespace sawtooth::recording
