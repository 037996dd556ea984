#include "core/recording/workload_list.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/util/format_bytes.h"

namespace sawtooth::recording {
namespace {

using nlohmann::json;

// Reads a field of the expected JSON type, or says which one is wrong.
class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  template <typename T>
  bool get(const json& object, const char* key, T& out, bool required = true) {
    if (!error_.empty()) return false;
    auto it = object.find(key);
    if (it == object.end()) {
      if (required) error_ = fmt::format("{}: '{}' is missing", where_, key);
      return false;
    }
    bool ok = false;
    if constexpr (std::is_same_v<T, std::string>) ok = it->is_string();
    else if constexpr (std::is_same_v<T, bool>) ok = it->is_boolean();
    else if constexpr (std::is_same_v<T, int>) ok = it->is_number_integer();
    else if constexpr (std::is_same_v<T, double>) ok = it->is_number();
    if (!ok) {
      error_ = fmt::format("{}: '{}' has the wrong type", where_, key);
      return false;
    }
    out = it->get<T>();
    return true;
  }
  void fail(std::string message) {
    if (error_.empty()) error_ = fmt::format("{}: {}", where_, message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string where_;
  std::string error_;
};

json parameterJson(const ParameterSpec& p) {
  json j = {{"name", p.name},
            {"type", p.type},
            {"description", p.description},
            {"default_gpu", p.gpu_default},
            {"default_cpu", p.cpu_default}};
  if (!p.choices.empty()) j["choices"] = p.choices;
  if (std::isfinite(p.min)) j["min"] = p.min;
  if (std::isfinite(p.max)) j["max"] = p.max;
  return j;
}

Result<ParameterSpec> parseParameter(const json& j, const std::string& where) {
  if (!j.is_object()) return Error{where + ": not an object"};
  Reader r(where);
  ParameterSpec p;
  r.get(j, "name", p.name);
  r.get(j, "type", p.type);
  r.get(j, "description", p.description, false);
  r.get(j, "default_gpu", p.gpu_default);
  r.get(j, "default_cpu", p.cpu_default);
  r.get(j, "min", p.min, false);
  r.get(j, "max", p.max, false);
  if (auto it = j.find("choices"); it != j.end()) {
    if (!it->is_array()) r.fail("'choices' is not a list");
    else
      for (const auto& c : *it) {
        if (!c.is_string()) r.fail("a choice is not a string");
        else p.choices.push_back(c.get<std::string>());
      }
  }
  if (!r.error().empty()) return Error{r.error()};
  if (p.type != kIntType && p.type != kFloatType && p.type != kChoiceType)
    return Error{fmt::format("{}: unknown parameter type '{}'", where, p.type)};
  // The defaults must pass the same check as a user's value.
  for (const std::string* d : {&p.gpu_default, &p.cpu_default})
    if (Status st = checkParameter(p, *d); !st)
      return Error{fmt::format("{}: default '{}' {}", where, *d, st.error().message)};
  return p;
}

Result<WorkloadSpec> parseWorkload(const json& j, const std::string& where) {
  if (!j.is_object()) return Error{where + ": not an object"};
  Reader r(where);
  WorkloadSpec w;
  r.get(j, "name", w.name);
  r.get(j, "title", w.title);
  r.get(j, "description", w.description, false);
  r.get(j, "distributed", w.distributed, false);
  if (!r.error().empty()) return Error{r.error()};
  auto params = j.find("parameters");
  if (params == j.end() || !params->is_array()) return Error{where + ": 'parameters' is not a list"};
  for (size_t i = 0; i < params->size(); ++i) {
    auto p = parseParameter((*params)[i], fmt::format("{}, parameter {}", where, i));
    if (!p) return p.error();
    if (w.parameter(p->name)) return Error{fmt::format("{}: parameter '{}' appears twice", where, p->name)};
    w.parameters.push_back(std::move(*p));
  }
  return w;
}

}  // namespace

const WorkloadSpec* WorkloadList::find(std::string_view name) const {
  for (const auto& w : workloads)
    if (w.name == name) return &w;
  return nullptr;
}

std::string WorkloadList::deviceDescription() const {
  auto name = environment.find("device_name");
  if (!cuda_available || name == environment.end()) return {};
  std::string text = name->second;
  if (auto total = environment.find("device_total_bytes"); total != environment.end()) {
    int64_t bytes = 0;
    const std::string& t = total->second;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), bytes);
    if (ec == std::errc() && end == t.data() + t.size()) text += ", " + formatBytes(bytes);
  }
  return text;
}

std::string toJson(const WorkloadList& list) {
  json workloads = json::array();
  for (const auto& w : list.workloads) {
    json params = json::array();
    for (const auto& p : w.parameters) params.push_back(parameterJson(p));
    workloads.push_back({{"name", w.name},
                         {"title", w.title},
                         {"description", w.description},
                         {"distributed", w.distributed},
                         {"parameters", params}});
  }
  const json doc = {{"version", kWorkloadListVersion},
                    {"workloads", workloads},
                    {"cuda_available", list.cuda_available},
                    {"cuda_devices", list.cuda_devices},
                    {"environment", list.environment}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace);
}

Result<WorkloadList> parseWorkloadList(std::string_view text) {
  if (text.size() > kMaxWorkloadListBytes)
    return Error{fmt::format("the workload list is {} bytes, more than the {} a recorder's list can be", text.size(),
                             kMaxWorkloadListBytes)};
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Error{"the workload list is not a JSON object"};
  Reader r("the workload list");
  int version = 0;
  if (!r.get(doc, "version", version)) return Error{r.error()};
  if (version > kWorkloadListVersion)
    return Error{fmt::format("the recorder's workload list has format version {}, newer than this app's {}: update Sawtooth",
                             version, kWorkloadListVersion)};
  WorkloadList list;
  r.get(doc, "cuda_available", list.cuda_available);
  r.get(doc, "cuda_devices", list.cuda_devices);
  if (!r.error().empty()) return Error{r.error()};
  if (list.cuda_devices < 0) return Error{"the workload list: 'cuda_devices' is negative"};
  if (auto env = doc.find("environment"); env != doc.end()) {
    if (!env->is_object()) return Error{"the workload list: 'environment' is not an object"};
    for (const auto& [k, v] : env->items())
      if (v.is_string()) list.environment[k] = v.get<std::string>();
  }
  auto workloads = doc.find("workloads");
  if (workloads == doc.end() || !workloads->is_array()) return Error{"the workload list: 'workloads' is not a list"};
  for (size_t i = 0; i < workloads->size(); ++i) {
    auto w = parseWorkload((*workloads)[i], fmt::format("the workload list, workload {}", i));
    if (!w) return w.error();
    if (list.find(w->name)) return Error{fmt::format("the workload list: workload '{}' appears twice", w->name)};
    list.workloads.push_back(std::move(*w));
  }
  if (list.workloads.empty()) return Error{"the recorder lists no workloads"};
  return list;
}

}  // namespace sawtooth::recording
