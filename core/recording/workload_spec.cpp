#include "core/recording/workload_spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

namespace sawtooth::recording {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The whole text as a number of type T, or nothing.
template <typename T>
std::optional<T> parseWhole(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || stop != end) return std::nullopt;
  return value;
}

std::string bound(double v) { return std::isfinite(v) ? fmt::format("{}", v) : (v < 0 ? "−∞" : "∞"); }

}  // namespace

const ParameterSpec* WorkloadSpec::parameter(std::string_view parameter_name) const {
  for (const auto& p : parameters)
    if (p.name == parameter_name) return &p;
  return nullptr;
}

Status checkParameter(const ParameterSpec& spec, std::string_view value) {
  if (spec.type == kChoiceType) {
    for (const auto& c : spec.choices)
      if (c == value) return Ok{};
    return Error{fmt::format("choose one of {}", joined(spec.choices))};
  }
  double number = 0;
  if (spec.type == kIntType) {
    const auto i = parseWhole<int64_t>(value);
    if (!i) return Error{"not a whole number"};
    number = static_cast<double>(*i);
  } else if (spec.type == kFloatType) {
    const auto d = parseWhole<double>(value);
    if (!d || !std::isfinite(*d)) return Error{"not a number"};
    number = *d;
  } else {
    return Error{fmt::format("has an unknown type '{}'", spec.type)};
  }
  if (number < spec.min || number > spec.max)
    return Error{fmt::format("must be between {} and {}", bound(spec.min), bound(spec.max))};
  return Ok{};
}

int64_t Parameters::integer(const std::string& name) const {
  if (auto v = parseWhole<int64_t>(values_.at(name))) return *v;
  throw std::invalid_argument(fmt::format("parameter {}={} is not a whole number", name, values_.at(name)));
}

double Parameters::real(const std::string& name) const {
  if (auto v = parseWhole<double>(values_.at(name))) return *v;
  throw std::invalid_argument(fmt::format("parameter {}={} is not a number", name, values_.at(name)));
}
const std::string& Parameters::text(const std::string& name) const { return values_.at(name); }

Result<Parameters> resolveParameters(const WorkloadSpec& spec, bool cuda,
                                     const std::vector<std::pair<std::string, std::string>>& overrides) {
  Parameters params;
  for (const auto& p : spec.parameters) params.set(p.name, p.defaultFor(cuda));
  for (const auto& [key, value] : overrides) {
    const ParameterSpec* found = spec.parameter(key);
    if (!found) {
      std::vector<std::string> known;
      for (const auto& p : spec.parameters) known.push_back(p.name);
      return Error{fmt::format("workload '{}' has no parameter '{}' (it has: {})", spec.name, key, joined(known))};
    }
    if (Status st = checkParameter(*found, value); !st) return Error{fmt::format("{}={}: {}", key, value, st.error().message)};
    params.set(key, value);
  }
  return params;
}

Result<bool> resolveDevice(std::string_view device, bool cuda_available) {
  if (device == "cpu") return false;
  if (device == "auto") return cuda_available;
  if (device == "cuda") {
    if (!cuda_available) return Error{"--device cuda: no CUDA device is available on this machine"};
    return true;
  }
  return Error{fmt::format("--device {}: expected auto, cuda or cpu", device)};
}

int maxRanks(bool cuda, int cuda_devices) { return cuda ? std::max(0, std::min(cuda_devices, kMaxRanks)) : kMaxRanks; }

Status checkRanks(const WorkloadSpec& spec, int ranks, bool cuda, int cuda_devices) {
  if (ranks < 1 || ranks > kMaxRanks) return Error{fmt::format("--ranks {}: expected 1 to {}", ranks, kMaxRanks)};
  if (!spec.distributed && ranks != 1)
    return Error{fmt::format("--ranks {}: '{}' runs in one process; only distributed workloads (data-parallel) run on "
                             "several ranks",
                             ranks, spec.name)};
  if (spec.distributed && cuda && ranks > cuda_devices)
    return Error{fmt::format("--ranks {}: one GPU per rank, and this machine has {} CUDA device(s); use --ranks {} or "
                             "fewer, or --device cpu",
                             ranks, cuda_devices, cuda_devices)};
  return Ok{};
}

}  // namespace sawtooth::recording
