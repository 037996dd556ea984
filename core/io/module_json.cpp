#include "core/io/module_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/util/format_bytes.h"
#include "core/util/printable.h"

namespace sawtooth {
namespace {

using nlohmann::json;

json categoriesJson(const CategoryBytes& b) {
  json j = json::object();
  for (int c = 0; c < kCategoryCount; ++c)
    if (b.bytes[static_cast<size_t>(c)] != 0) j[std::string(name(static_cast<Category>(c)))] = b.bytes[static_cast<size_t>(c)];
  j["total"] = b.total();
  return j;
}

json passJson(const PassCost& p) {
  return {{"calls", p.calls}, {"time_ns", p.time_ns}, {"median_ns", p.median_ns}, {"peak_increment", p.peak_increment}};
}

std::vector<const ModuleRow*> shown(const ModuleMemory& memory, int max_depth) {
  return rowsToDepth(memory, max_depth < 0 ? INT32_MAX : max_depth);
}

std::string milliseconds(int64_t ns) { return ns == 0 ? "" : fmt::format("{:.2f}", static_cast<double>(ns) / 1e6); }
std::string bytesOrBlank(int64_t b) { return b == 0 ? "" : formatBytes(b); }

}  // namespace

std::string modulesJson(const Trace& trace, const std::string& file, const ModuleMemory& memory, int max_depth,
                        int indent) {
  json rows = json::array();
  for (const ModuleRow* row : shown(memory, max_depth)) {
    json j = {{"name", row->name}, {"depth", row->depth}};
    if (row->module != kNoModule) {
      j["class"] = row->class_name;
      j["parent"] = row->parent_row < memory.rows.size() ? json(memory.rows[row->parent_row].name) : json(nullptr);
      j["declared_parameter_bytes"] = row->declared_parameter_bytes;
      if (memory.costs_known) {  // not computed for a file read from its summaries
        j["forward"] = passJson(row->forward);
        j["backward"] = passJson(row->backward);
        if (row->recompute.calls) j["recompute"] = passJson(row->recompute);
      }
    }
    j["self"] = categoriesJson(row->self);
    j["total"] = categoriesJson(row->total);
    j["allocations"] = row->allocations;
    rows.push_back(std::move(j));
  }
  json out = {{"file", file},
              {"device", trace.deviceName(memory.device)},
              {"device_index", memory.device},
              {"event_index", memory.position},
              {"at_peak", memory.at_peak},
              {"at", {{"pass", memory.at_pass}, {"phase", memory.at_phase}, {"module", memory.at_module}}},
              {"live_bytes", memory.live_bytes},
              {"depth", max_depth < 0 ? json(nullptr) : json(max_depth)},
              {"headline", memory.headline},
              {"costs_known", memory.costs_known},
              {"costs_scope", memory.costs_known ? json(memory.costs_scope.empty() ? "trace" : memory.costs_scope) : json(nullptr)},
              {"costs_unknown", memory.costs_known ? json(nullptr) : json(memory.costs_unknown)},
              {"modules", rows}};
  return out.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string modulesText(const ModuleMemory& memory, int max_depth) {
  // Module names come from the file: printable(), so that one cannot forge a line.
  std::string out = printable(memory.headline) + "\n\n";
  out += fmt::format("{:<44} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>10} {:>9}\n", "module",
                     "params", "grads", "optim", "activ", "temp", "other", "total", "fwd peak+", "fwd ms", "bwd peak+",
                     "bwd ms");
  for (const ModuleRow* row : shown(memory, max_depth)) {
    // Below its parent a module shows the last part of its name, indented.
    std::string label = row->name;
    if (row->parent_row < memory.rows.size()) {
      const std::string& p = memory.rows[row->parent_row].name;
      if (label.size() > p.size() + 1 && label.starts_with(p)) label = label.substr(p.size() + 1);
    }
    label = std::string(static_cast<size_t>(2 * row->depth), ' ') + printable(label);
    if (row->depth == max_depth && row->total.total() != row->self.total()) label += " (+)";
    const CategoryBytes& b = row->total;
    out += fmt::format("{:<44} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>10} {:>9}\n", label,
                       bytesOrBlank(b[Category::Parameter]), bytesOrBlank(b[Category::Gradient]),
                       bytesOrBlank(b[Category::OptimizerState]), bytesOrBlank(b[Category::Activation]),
                       bytesOrBlank(b[Category::Temporary]), bytesOrBlank(b.other()), formatBytes(b.total()),
                       bytesOrBlank(row->forward.peak_increment), milliseconds(row->forward.median_ns),
                       bytesOrBlank(row->backward.peak_increment), milliseconds(row->backward.median_ns));
  }
  out += "\nBytes are alive at that moment, each module with its submodules; (+): submodules not shown (--depth).\n";
  if (memory.costs_known) {
    out += "peak+: the largest rise of the device's allocated bytes during one call of the module's pass; ms: one "
           "call's, the median of its calls (--json's time_ns sums them)";
    out += memory.costs_scope.empty() ? ".\n" : "; costs over " + printable(memory.costs_scope) + ".\n";
  } else {
    out += "No forward and backward costs (blank): " +
           printable(memory.costs_unknown.empty() ? std::string("not computed") : memory.costs_unknown) + ".\n";
  }
  return out;
}

}  // namespace sawtooth
