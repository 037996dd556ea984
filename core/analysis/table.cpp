#include "core/analysis/table.h"

#include <cmath>

#include <fmt/format.h>

#include "core/analysis/result_text.h"
#include "core/util/format_bytes.h"

namespace sawtooth {

std::string_view unitName(Unit unit) {
  switch (unit) {
    case Unit::Bytes: return "bytes";
    case Unit::Nanoseconds: return "ns";
    case Unit::Milliseconds: return "ms";
    case Unit::Ratio: return "ratio";
    case Unit::Share: return "fraction";
    case Unit::Speedup: return "speed-up";
    case Unit::FlopPerSecond: return "FLOP/s";
    case Unit::Text:
    case Unit::Count:
    case Unit::Number: return "";
  }
  return "";
}

std::string csvHeader(const TableColumn& column) {
  const std::string_view unit = column.unit_label.empty() ? unitName(column.unit) : std::string_view(column.unit_label);
  return unit.empty() ? column.name : fmt::format("{} ({})", column.name, unit);
}

namespace {

bool integral(double v) { return std::isfinite(v) && std::fabs(v) < 9.007199254740992e15 && v == std::floor(v); }

}  // namespace

std::string csvValue(const Cell& cell, Unit) {
  if (const std::string* t = cell.text()) return *t;
  const double* n = cell.number();
  if (!n) return {};
  if (integral(*n)) return fmt::format("{}", static_cast<int64_t>(*n));
  return fmt::format("{}", *n);  // shortest representation that reads back exactly
}

std::string displayText(const Cell& cell, Unit unit) {
  if (const std::string* t = cell.text()) return *t;
  const double* n = cell.number();
  if (!n) return {};
  const double v = *n;
  switch (unit) {
    case Unit::Bytes: return formatBytes(static_cast<int64_t>(v));
    case Unit::Nanoseconds: return formatDuration(static_cast<int64_t>(v));
    case Unit::Milliseconds: return fmt::format("{:.3f} ms", v);
    case Unit::Ratio: return signedPercentText(v);
    case Unit::Share: return fmt::format("{:.1f} %", v * 100);
    case Unit::Speedup: return speedupText(v);
    case Unit::FlopPerSecond: return flopRateText(v);
    case Unit::Count: return integral(v) ? fmt::format("{}", static_cast<int64_t>(v)) : fmt::format("{:.6g}", v);
    case Unit::Number:
    case Unit::Text: return fmt::format("{:.6g}", v);
  }
  return {};
}

}  // namespace sawtooth
