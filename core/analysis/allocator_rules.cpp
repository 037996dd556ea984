#include "core/analysis/allocator_rules.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/wrapping.h"

namespace sawtooth {
namespace {

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kMaxMiB = int64_t{1} << 40;  // beyond any device: a bound against overflow

std::optional<int64_t> parseInt(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> parseMiB(std::string_view text) {
  auto v = parseInt(text);
  if (!v || *v < 0 || *v > kMaxMiB) return std::nullopt;
  return *v * kMiB;
}

bool parseBool(std::string_view text) { return text == "True" || text == "true" || text == "1"; }

// PyTorch's tokenizer: keys, values and the characters , : [ ] as tokens; blanks dropped.
std::vector<std::string> tokens(const std::string& conf) {
  std::vector<std::string> out;
  std::string word;
  for (char ch : conf) {
    if (ch == ',' || ch == ':' || ch == '[' || ch == ']') {
      if (!word.empty()) out.push_back(std::move(word)), word.clear();
      out.emplace_back(1, ch);
    } else if (!std::isspace(static_cast<unsigned char>(ch))) {
      word += ch;
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// roundup_power2_divisions:N (every interval) or [64:8,256:4,>:1] (interval of the MiB size given;
// the first entry also covers the intervals below it, '>' every interval from the last one on).
size_t parseRoundup(AllocatorSettings& s, const std::vector<std::string>& t, size_t i) {
  if (t[i + 2] != "[") {
    if (auto v = parseInt(t[i + 2]); v && *v >= 0) s.roundup_power2_divisions.fill(*v);
    return i + 2;
  }
  auto& d = s.roundup_power2_divisions;
  size_t last = 0;
  bool first = true;
  size_t j = i + 3;
  while (j < t.size() && t[j] != "]") {
    if (t[j] == ",") {
      ++j;
      continue;
    }
    if (j + 2 >= t.size() || t[j + 1] != ":") return j;
    auto divisions = parseInt(t[j + 2]);
    if (divisions && *divisions >= 0) {
      if (t[j] == ">") {
        std::fill(d.begin() + static_cast<ptrdiff_t>(last) + 1, d.end(), *divisions);  // as PyTorch 2.11 does
      } else if (auto mib = parseInt(t[j]); mib && *mib > 0) {
        const auto index = std::min<size_t>(static_cast<size_t>(std::bit_width(static_cast<uint64_t>(*mib)) - 1), 15);
        if (first) std::fill(d.begin(), d.begin() + static_cast<ptrdiff_t>(index), *divisions);
        d[index] = *divisions;
        last = index;
        first = false;
      }
    }
    j += 3;
  }
  return j;
}

}  // namespace

void applyAllocConf(AllocatorSettings& s, const std::string& conf) {
  const auto t = tokens(conf);
  for (size_t i = 0; i < t.size(); ++i) {
    if (i + 2 >= t.size() || t[i + 1] != ":") continue;
    const std::string& key = t[i];
    if (key == "roundup_power2_divisions") {
      i = parseRoundup(s, t, i);
      continue;
    }
    const std::string& value = t[i + 2];
    if (key == "max_split_size_mb") {
      if (auto v = parseMiB(value)) s.max_split_size = *v;
    } else if (key == "max_non_split_rounding_mb") {
      if (auto v = parseMiB(value)) s.max_non_split_rounding = *v;
    } else if (key == "large_segment_size_mb") {
      if (auto v = parseMiB(value); v && *v > 0) s.large_segment_size = *v;
    } else if (key == "expandable_segments") {
      s.expandable_segments = parseBool(value);
    }
    i += 2;
  }
}

AllocatorSettings allocatorSettings(const Trace& trace) {
  AllocatorSettings s;
  auto meta = [&](const char* key) -> const std::string* {
    auto it = trace.meta.find(std::string("allocator.") + key);
    return it == trace.meta.end() ? nullptr : &it->second;
  };
  if (const std::string* conf = meta("PYTORCH_CUDA_ALLOC_CONF")) {
    applyAllocConf(s, *conf);
    s.from_trace = true;
  }
  // The dict holds the settings in force when the snapshot was taken: it wins over the string.
  if (const std::string* v = meta("max_split_size")) {
    if (auto n = parseInt(*v)) s.max_split_size = *n < 0 ? kUnlimited : *n;
    s.from_trace = true;
  }
  if (const std::string* v = meta("expandable_segments")) {
    s.expandable_segments = parseBool(*v);
    s.from_trace = true;
  }
  if (const std::string* v = meta("roundup_power2_divisions")) {
    const auto j = nlohmann::json::parse(*v, nullptr, false);
    if (j.is_object()) {
      for (const auto& [key, value] : j.items()) {
        auto k = parseInt(key);
        if (!k || *k <= 0 || !value.is_number_integer() || value.get<int64_t>() < 0) continue;
        const auto index = static_cast<size_t>(std::bit_width(static_cast<uint64_t>(*k)) - 1);
        if (index < s.roundup_power2_divisions.size()) s.roundup_power2_divisions[index] = value.get<int64_t>();
      }
      s.from_trace = true;
    }
  }
  return s;
}

int64_t roundSize(int64_t requested, const AllocatorSettings& s) {
  if (requested < kMinBlockSize) return kMinBlockSize;
  if (requested > kHostileSize) return requested;  // no device holds this: leave it as it is
  const auto size = static_cast<uint64_t>(requested);
  // Intervals start at 1 MiB: index 0 is everything below 2 MiB.
  const int log2 = std::bit_width(size) - 1;
  const auto index = static_cast<size_t>(std::clamp(log2 - 20, 0, 15));
  const int64_t divisions = s.roundup_power2_divisions[index];
  if (divisions > 1 && requested > kMinBlockSize * divisions) {
    if (std::has_single_bit(size)) return requested;
    const uint64_t floor = std::bit_floor(size);
    const uint64_t step = floor >> (std::bit_width(static_cast<uint64_t>(divisions)) - 1);
    if (step == 0) return static_cast<int64_t>(floor << 1);
    const uint64_t low = size & ~(step - 1);
    return static_cast<int64_t>(low == size ? size : low + step);
  }
  return kMinBlockSize * ((requested + kMinBlockSize - 1) / kMinBlockSize);
}

int64_t segmentSizeFor(int64_t rounded, const AllocatorSettings& s) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return s.large_segment_size;
  if (rounded > kHostileSize) return rounded;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

bool shouldSplit(int64_t block_size, int64_t rounded, bool small_pool, const AllocatorSettings& s) {
  const int64_t remaining = wrappingSub(block_size, rounded);
  if (small_pool || s.expandable_segments) return remaining >= kMinBlockSize;
  return rounded < s.max_split_size && remaining > kSmallSize;
}

int64_t largestUnsplitBlock(int64_t rounded, bool small_pool, const AllocatorSettings& s) {
  if (small_pool || s.expandable_segments || rounded > kHostileSize) return rounded;
  if (rounded >= s.max_split_size) return rounded + std::min(s.max_non_split_rounding, kHostileSize) - kMinBlockSize;
  return rounded + kSmallSize;
}

}  // namespace sawtooth
