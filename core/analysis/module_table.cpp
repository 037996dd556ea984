#include "core/analysis/module_table.h"

namespace sawtooth {
namespace {

double number(int64_t v) { return static_cast<double>(v); }
Cell bytesOrEmpty(int64_t v) { return v == 0 ? Cell() : Cell(number(v)); }
Cell millisecondsOrEmpty(int64_t ns) { return ns == 0 ? Cell() : Cell(static_cast<double>(ns) / 1e6); }

}  // namespace

Table modulesTable(const ModuleMemory& memory) {
  Table t;
  t.columns = {{"module", Unit::Text},
               {"class", Unit::Text},
               {"parameters", Unit::Bytes},
               {"gradients", Unit::Bytes},
               {"optimizer state", Unit::Bytes},
               {"activations", Unit::Bytes},
               {"temporaries", Unit::Bytes},
               {"other", Unit::Bytes},
               {"total", Unit::Bytes},
               {"own", Unit::Bytes},
               {"share", Unit::Share},
               {"forward calls", Unit::Count},
               {"forward peak increment", Unit::Bytes},
               {"forward time per call", Unit::Milliseconds},
               {"forward time in all", Unit::Milliseconds},
               {"backward peak increment", Unit::Bytes},
               {"backward time per call", Unit::Milliseconds},
               {"backward time in all", Unit::Milliseconds},
               {"recompute calls", Unit::Count}};
  // Without costs (a file too large to read whole) the table ends at the bytes: empty cells would
  // read as "no calls".
  if (!memory.costs_known) t.columns.erase(t.columns.begin() + 11, t.columns.end());
  t.rows.reserve(memory.rows.size());
  for (const ModuleRow& row : memory.rows) {
    const CategoryBytes& b = row.total;
    const bool module = row.module != kNoModule;
    t.rows.push_back({row.name, row.class_name, bytesOrEmpty(b[Category::Parameter]), bytesOrEmpty(b[Category::Gradient]),
                      bytesOrEmpty(b[Category::OptimizerState]), bytesOrEmpty(b[Category::Activation]),
                      bytesOrEmpty(b[Category::Temporary]), bytesOrEmpty(b.other()), number(b.total()),
                      number(row.self.total()),
                      memory.live_bytes > 0 ? Cell(number(b.total()) / number(memory.live_bytes)) : Cell(),
                      module ? Cell(number(row.forward.calls)) : Cell(), bytesOrEmpty(row.forward.peak_increment),
                      millisecondsOrEmpty(row.forward.median_ns), millisecondsOrEmpty(row.forward.time_ns),
                      bytesOrEmpty(row.backward.peak_increment), millisecondsOrEmpty(row.backward.median_ns),
                      millisecondsOrEmpty(row.backward.time_ns),
                      row.recompute.calls ? Cell(number(row.recompute.calls)) : Cell()});
    t.rows.back().resize(t.columns.size());
  }
  return t;
}

ModulesAt modulesAt(const Trace& trace, int16_t device, std::optional<int64_t> position) {
  return modulesFrom(moduleMemoryAt(trace, device, position));
}

ModulesAt modulesFrom(ModuleMemory memory) {
  ModulesAt out;
  out.memory = std::move(memory);
  if (!out.memory.unavailable.empty()) return out;
  out.icicle = buildModuleIcicle(out.memory);
  out.table = modulesTable(out.memory);
  return out;
}

}  // namespace sawtooth
