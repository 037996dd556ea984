#include "workloads/experiments/workload.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace sawtooth::workloads {

int64_t Parameters::integer(const std::string& name) const { return std::stoll(values_.at(name)); }
double Parameters::real(const std::string& name) const { return std::stod(values_.at(name)); }
const std::string& Parameters::text(const std::string& name) const { return values_.at(name); }

namespace {

Status check(const ParameterSpec& p, const std::string& value) {
  if (p.type == "choice") {
    for (const auto& c : p.choices)
      if (c == value) return Ok{};
    std::string options;
    for (const auto& c : p.choices) options += (options.empty() ? "" : ", ") + c;
    return Error{fmt::format("{}={}: choose one of {}", p.name, value, options)};
  }
  double number = 0;
  if (p.type == "int") {
    int64_t i = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), i);
    if (ec != std::errc() || end != value.data() + value.size())
      return Error{fmt::format("{}={}: not a whole number", p.name, value)};
    number = static_cast<double>(i);
  } else {
    try {
      size_t used = 0;
      number = std::stod(value, &used);
      if (used != value.size() || !std::isfinite(number)) throw std::invalid_argument(value);
    } catch (const std::exception&) {
      return Error{fmt::format("{}={}: not a number", p.name, value)};
    }
  }
  if (number < p.min || number > p.max)
    return Error{fmt::format("{}={}: must be between {} and {}", p.name, value, p.min, p.max)};
  return Ok{};
}

}  // namespace

Result<Parameters> resolveParameters(const WorkloadSpec& spec, bool cuda,
                                     const std::vector<std::pair<std::string, std::string>>& overrides) {
  Parameters params;
  for (const auto& p : spec.parameters) params.set(p.name, cuda ? p.gpu_default : p.cpu_default);
  for (const auto& [key, value] : overrides) {
    const ParameterSpec* found = nullptr;
    for (const auto& p : spec.parameters)
      if (p.name == key) found = &p;
    if (!found) {
      std::string known;
      for (const auto& p : spec.parameters) known += (known.empty() ? "" : ", ") + p.name;
      return Error{fmt::format("workload '{}' has no parameter '{}' (it has: {})", spec.name, key, known)};
    }
    if (Status st = check(*found, value); !st) return st.error();
    params.set(key, value);
  }
  return params;
}

}  // namespace sawtooth::workloads
