#include "core/analysis/interconnect.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace sawtooth {
namespace {

// Measured: the data-parallel workload (6 × 2048² fp32 weights, 100.7 MB of gradients, one
// all-reduce a step) on two H200s over NVLink 4, NCCL's multicast off: its all-reduce kernels took
// 0.55 ms a step (bench/results/h200x2-2026-12-04-ladder-ddp.md), 183 GB/s. Kernel time, so any
// wait for the other rank is in it.
constexpr double kNvlink4 = 100.663296 / 0.55;  // 1e9 B/s
// Nominal rates per direction, by which the others are scaled from the measured one.
constexpr double kNvlink4Nominal = 450, kNvlink3Nominal = 300, kNvlink2Nominal = 150, kNvlink5Nominal = 900;
constexpr double kPcie5Nominal = 64, kPcie4Nominal = 32, kPcie3Nominal = 16;

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

bool has(const std::string& name, std::string_view part) { return name.find(part) != std::string::npos; }

Interconnect scaled(const char* link, double nominal) {
  return {link, kNvlink4 * nominal / kNvlink4Nominal,
          std::string("scaled from NVLink 4's measured figure by the nominal rates (") + link + ", not measured)"};
}

}  // namespace

std::optional<Interconnect> interconnectOf(std::string_view device_name, int devices) {
  const std::string name = upper(device_name);
  if (name.empty() || name == "CPU" || devices < 2) return std::nullopt;
  const bool hopper = has(name, "H100") || has(name, "H200");
  const Interconnect measured{"NVLink 4", kNvlink4,
                              "measured: the data-parallel workload's all-reduce on two H200s (100.7 MB in 0.55 ms)"};
  if (has(name, "PCIE")) {
    if (hopper) return scaled("PCIe 5.0", kPcie5Nominal);
    if (has(name, "V100") || has(name, "P100")) return scaled("PCIe 3.0", kPcie3Nominal);
    return scaled("PCIe 4.0", kPcie4Nominal);
  }
  if (hopper && has(name, "NVL")) {
    // The NVL cards are bridged in pairs by NVLink; more than two talk over PCIe 5.0.
    if (devices == 2) return measured;
    return scaled("PCIe 5.0", kPcie5Nominal);
  }
  if (hopper || has(name, "GH200")) return measured;
  if (has(name, "B200") || has(name, "B100")) return scaled("NVLink 5", kNvlink5Nominal);
  if (has(name, "A100") || has(name, "A800")) return scaled("NVLink 3", kNvlink3Nominal);
  if (has(name, "V100") && has(name, "SXM")) return scaled("NVLink 2", kNvlink2Nominal);
  return std::nullopt;  // consumer and inference cards (no NVLink, often no peer-to-peer), or unknown
}

double ringAllReduceMs(double bytes, int devices, double bus_gb_per_s) {
  if (devices < 2 || bus_gb_per_s <= 0) return 0;
  return bytes * 2.0 * (devices - 1) / devices / (bus_gb_per_s * 1e9) * 1e3;
}

}  // namespace sawtooth
