#include "core/io/read_limits.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

constexpr std::array<std::string_view, 14> kNames = {
    "memory",  "decompressed", "decompress-ratio", "depth",   "items",   "string",        "frames",
    "stacks",  "devices",      "seconds",          "events", "journal", "amplification", "size"};

uint64_t threeQuarters(uint64_t v) { return v / 4 * 3; }

std::string plainNumber(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != '_' && c != ',') out += c;
  return out;
}

}  // namespace

uint64_t defaultMaxMemory() {
  uint64_t limit = uint64_t{8} << 30;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) limit = threeQuarters(static_cast<uint64_t>(pages) * static_cast<uint64_t>(page));
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl {};
    if (::getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      limit = std::min<uint64_t>(limit, threeQuarters(rl.rlim_cur));
  }
  return std::max<uint64_t>(limit, uint64_t{16} << 20);
}

uint64_t ReadLimits::memoryLimit() const { return max_memory ? max_memory : defaultMaxMemory(); }

std::optional<uint64_t> parseByteSize(std::string_view text) {
  const std::string s = plainNumber(text);
  double value = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin || !(value >= 0)) return std::nullopt;
  std::string unit(ptr, end);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit.ends_with("ib")) unit.erase(unit.size() - 2);
  else if (unit.size() > 1 && unit.back() == 'b') unit.pop_back();
  double scale = 1;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k") scale = 0x1p10;
  else if (unit == "m") scale = 0x1p20;
  else if (unit == "g") scale = 0x1p30;
  else if (unit == "t") scale = 0x1p40;
  else return std::nullopt;
  const double bytes = value * scale;
  if (!(bytes < 0x1p63)) return std::nullopt;
  return static_cast<uint64_t>(std::llround(bytes));
}

std::span<const std::string_view> limitNames() { return kNames; }

std::string raiseHint(std::string_view limit_name) {
  if (limit_name == "memory") return "raise it with --max-memory SIZE";
  return fmt::format("raise it with --limit {}=N", limit_name);
}

Status setLimit(ReadLimits& limits, std::string_view assignment) {
  const size_t eq = assignment.find('=');
  const std::string_view name = assignment.substr(0, eq);
  if (eq == std::string_view::npos || std::find(kNames.begin(), kNames.end(), name) == kNames.end())
    return Error{fmt::format("--limit takes NAME=VALUE with NAME one of: {}", fmt::join(kNames, ", "))};
  const std::string_view value = assignment.substr(eq + 1);
  if (name == "seconds") {
    const std::string s = plainNumber(value);
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), seconds);
    if (ec != std::errc() || ptr != s.data() + s.size() || !(seconds > 0))
      return Error{fmt::format("--limit seconds={}: not a positive number of seconds", value)};
    limits.max_seconds = seconds;
    return Ok{};
  }
  const auto bytes = parseByteSize(value);
  if (!bytes || *bytes == 0) return Error{fmt::format("--limit {}={}: not a positive number", name, value)};
  if (name == "memory") limits.max_memory = *bytes;
  else if (name == "decompressed") limits.max_decompressed = *bytes;
  else if (name == "decompress-ratio") limits.max_decompress_ratio = *bytes;
  else if (name == "depth") limits.max_depth = *bytes;
  else if (name == "items") limits.max_container_items = *bytes;
  else if (name == "string") limits.max_string_bytes = *bytes;
  else if (name == "frames") limits.max_frames = *bytes;
  else if (name == "stacks") limits.max_stacks = *bytes;
  else if (name == "devices") limits.max_devices = *bytes;
  else if (name == "events") limits.max_events = *bytes;
  else if (name == "journal") limits.max_journal = *bytes;
  else if (name == "amplification") limits.max_amplification = *bytes;
  else if (name == "size") limits.max_size = *bytes;
  return Ok{};
}

ReadBudget::ReadBudget(const ReadLimits& limits)
    : limits_(limits),
      limit_(limits.memoryLimit()),
      deadline_(std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(std::min(limits.max_seconds, 1e9)))) {}

bool ReadBudget::take(uint64_t bytes) {
  if (bytes > limit_ || used_ > limit_ - bytes) return false;
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  return true;
}

Error ReadBudget::memoryError(std::string_view what) const {
  return Error{fmt::format("reading it needs more than {} of memory for {} (the memory limit; {})",
                           formatBytes(static_cast<int64_t>(std::min<uint64_t>(limit_, INT64_MAX))), what,
                           raiseHint("memory"))};
}

Error ReadBudget::timeError() const {
  return Error{fmt::format("reading it takes more than {} s (the time limit; {})", limits_.max_seconds,
                           raiseHint("seconds"))};
}

uint64_t ReadBudget::amplificationCap() const {
  if (input_bytes_ == UINT64_MAX) return UINT64_MAX;
  const uint64_t ratio = limits_.max_amplification;
  const uint64_t scaled = input_bytes_ > UINT64_MAX / std::max<uint64_t>(ratio, 1) ? UINT64_MAX : input_bytes_ * ratio;
  return std::max(limits_.amplification_floor, scaled);
}

Status ReadBudget::withinAmplification(uint64_t count, std::string_view what) const {
  if (count <= amplificationCap()) return Ok{};
  return Error{fmt::format("{} {} from {} bytes of input: more than {} a byte past the first {} (the amplification "
                           "limit; {})",
                           count, what, input_bytes_, limits_.max_amplification, limits_.amplification_floor,
                           raiseHint("amplification"))};
}

Status EventCharge::admit(uint64_t rows) {
  if (rows >= budget_.limits().max_events)
    return Error{fmt::format("more than {} events (the events limit; {})", budget_.limits().max_events, raiseHint("events"))};
  // Every row against the amplification cap (a compare): a cap below one step (a small floor) holds exactly.
  if (Status st = budget_.withinAmplification(rows + 1, "events"); !st) return st;
  if (rows < charged_) return Ok{};
  constexpr uint64_t kStep = 65536, kRowBytes = 49;
  if (!budget_.take(kStep * kRowBytes)) return budget_.memoryError("the events");
  charged_ += kStep;
  return Ok{};
}

}  // namespace sawtooth
