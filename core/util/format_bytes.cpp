#include "core/util/format_bytes.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace sawtooth {

std::string formatBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  const double a = std::fabs(b);
  if (a < 1e3) return fmt::format("{} B", bytes);
  if (a < 1e6) return fmt::format("{:.1f} kB", b / 1e3);
  if (a < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  if (a < 1e12) return fmt::format("{:.2f} GB", b / 1e9);
  return fmt::format("{:.2f} TB", b / 1e12);
}

std::string formatDuration(int64_t ns) {
  const double a = std::fabs(static_cast<double>(ns));
  if (a < 1e3) return fmt::format("{} ns", ns);
  if (a < 1e6) return fmt::format("{:.2f} µs", static_cast<double>(ns) / 1e3);
  if (a < 1e9) return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6);
  return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
}

}  // namespace sawtooth
