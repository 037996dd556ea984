#include "core/analysis/ladder_table.h"

#include <fmt/format.h>

#include "core/util/format_bytes.h"

namespace sawtooth {
namespace {

Cell bytesCell(int64_t b) { return Cell(static_cast<double>(b)); }
Cell optional(const std::optional<double>& v) { return v ? Cell(*v) : Cell(); }

}  // namespace

Table ladderTable(const LadderReport& rep) {
  Table t;
  t.columns = {{"rung"},
               {"predicted peak", Unit::Bytes},
               {"measured peak", Unit::Bytes},
               {"peak error", Unit::Ratio},
               {"peak change", Unit::Ratio},
               {"predicted step", Unit::Milliseconds},
               {"measured step", Unit::Milliseconds},
               {"step error", Unit::Ratio},
               {"step change", Unit::Ratio},
               {"fits"},
               {"largest batch that fits", Unit::Count},
               {"predicted reserved", Unit::Bytes},
               {"note"}};
  t.columns[4].is_change = true;
  t.columns[8].is_change = true;
  const LadderRow* base = rep.rows.empty() ? nullptr : &rep.rows.front();
  auto peakOf = [&](const LadderRow& r) { return rep.cuda ? r.peak_allocated_blocks : r.peak_allocated; };
  for (const LadderRow& r : rep.rows) {
    std::vector<Cell> row(t.columns.size());
    row[0] = r.label;
    if (r.applicable && r.predicted) {
      row[1] = bytesCell(peakOf(r));
      if (base && &r != base && peakOf(*base) > 0)
        row[4] = static_cast<double>(peakOf(r)) / static_cast<double>(peakOf(*base)) - 1;
      row[5] = optional(r.step_ms);
      if (base && &r != base && r.step_ms && base->step_ms && *base->step_ms > 0) row[8] = *r.step_ms / *base->step_ms - 1;
      if (r.fits) row[9] = std::string(*r.fits ? "yes" : "no");
      if (r.max_batch) row[10] = static_cast<double>(*r.max_batch);
      if (r.peak_reserved) row[11] = bytesCell(*r.peak_reserved);
    }
    if (r.measured) {
      row[2] = bytesCell(rep.cuda ? r.measured->peak_allocated_blocks : r.measured->peak_allocated);
      row[3] = optional(r.peak_error);
      row[6] = optional(r.measured->step_ms);
      row[7] = optional(r.time_error);
    }
    if (!r.applicable) row[12] = "not applicable: " + r.note;
    else if (!r.predicted) row[12] = r.note;
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> ladderSummary(const LadderReport& rep) {
  std::vector<std::string> out;
  out.push_back(fmt::format("Predicted from run '{}' on {}{}; peaks in {}.", rep.run,
                            rep.cuda ? fmt::format("cuda:{}", rep.device) : std::string("the CPU"),
                            rep.device_name.empty() ? "" : " (" + rep.device_name + ")",
                            rep.cuda ? "allocator blocks, as max_memory_allocated counts" : "bytes"));
  if (rep.device_memory > 0)
    out.push_back(fmt::format("What fits is judged against {} ({}).", formatBytes(rep.device_memory), rep.device_memory_source));
  if (rep.batch) out.push_back(fmt::format("The recorded batch: {} (its '{}').", *rep.batch, rep.batch_key));
  out.push_back("Repeated blocks: " + rep.blocks_source);
  out.push_back("Step time: " + rep.time_source + (rep.parts_source.empty() ? "" : "; its parts: " + rep.parts_source));
  out.push_back(fmt::format("Diagnosis: {} — start with: {}", rep.diagnosis.verdict, rep.diagnosis.start_with));
  for (const std::string& e : rep.diagnosis.evidence) out.push_back("  " + e);
  return out;
}

std::vector<std::string> ladderRowDetails(const LadderReport& rep, size_t index) {
  std::vector<std::string> out;
  if (index >= rep.rows.size()) return out;
  const LadderRow& r = rep.rows[index];
  out.push_back(r.label);
  if (!r.applicable) {
    out.push_back("Not applicable: " + r.note);
    return out;
  }
  if (!r.predicted) {
    out.push_back(r.note);
  } else {
    if (index > 0)
      for (const std::string& line : r.reasoning) out.push_back("• " + line);
    std::string alive;
    for (int k = 0; k < kBlockRoleCount; ++k)
      if (const int64_t b = r.at_peak[static_cast<size_t>(k)]; b > 0)
        alive += fmt::format("{}{} {}", alive.empty() ? "" : ", ", formatBytes(b), name(static_cast<BlockRole>(k)));
    if (!alive.empty()) out.push_back(fmt::format("At the predicted peak{}: {}.", r.peak_part.empty() ? "" : " (" + r.peak_part + ")", alive));
    if (!r.time_basis.empty()) out.push_back("Time: " + r.time_basis);
    if (r.max_batch_scale)
      out.push_back(r.max_batch ? fmt::format("The largest batch that fits: {} ({:.2f}× the recorded).", *r.max_batch, *r.max_batch_scale)
                                : fmt::format("The largest batch that fits: {:.2f}× the recorded.", *r.max_batch_scale));
  }
  if (r.measured) {
    out.push_back(fmt::format("Measured in {}: peak {}{}.", r.measured->source,
                              formatBytes(rep.cuda ? r.measured->peak_allocated_blocks : r.measured->peak_allocated),
                              r.measured->step_ms ? fmt::format(", step {:.3g} ms", *r.measured->step_ms) : ""));
    if (r.peak_error) out.push_back(fmt::format("Peak error: {:+.2f} %.", 100 * *r.peak_error));
    if (r.time_error) out.push_back(fmt::format("Step-time error: {:+.1f} %.", 100 * *r.time_error));
  }
  return out;
}

}  // namespace sawtooth
