#include "core/analysis/result_text.h"

#include <cmath>

#include <fmt/format.h>

namespace sawtooth {
namespace {

std::string threeDigits(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

}  // namespace

std::string speedupText(double speedup) {
  if (!(speedup > 0) || !std::isfinite(speedup)) return "not comparable";
  const bool faster = speedup >= 1;
  const double factor = faster ? speedup : 1 / speedup;
  if (factor < 1.02) return "as fast";
  const std::string digits = factor < 1.1 ? fmt::format("{:.2f}", factor)
                             : factor < 10 ? fmt::format("{:.1f}", factor)
                                           : fmt::format("{:.0f}", factor);
  return fmt::format("{}× {}", digits, faster ? "faster" : "slower");
}

std::string flopRateText(double flop_per_s) {
  static constexpr std::pair<double, const char*> units[] = {
      {1e15, "PFLOP/s"}, {1e12, "TFLOP/s"}, {1e9, "GFLOP/s"}, {1e6, "MFLOP/s"}, {1e3, "kFLOP/s"}};
  for (const auto& [scale, unit] : units)
    if (std::fabs(flop_per_s) >= scale) return threeDigits(flop_per_s / scale) + " " + unit;
  return threeDigits(flop_per_s) + " FLOP/s";
}

std::string signedPercentText(double change) {
  const double p = change * 100;
  if (!std::isfinite(p)) return "?";
  if (std::fabs(p) < 0.5) return "±0 %";
  return fmt::format("{}{:.0f} %", p < 0 ? "−" : "+", std::fabs(p));
}

}  // namespace sawtooth
