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
  enum Column : size_t { Rung, Predicted, Low, High, Measured, InRange, PeakError, PeakChange, PredictedStep,
                         MeasuredStep, StepError, StepChange, Fits, LargestBatch, Reserved, Note, Count };
  t.columns = {{"rung"},
               {"predicted peak", Unit::Bytes},
               {"lowest possible peak", Unit::Bytes},
               {"highest possible peak", Unit::Bytes},
               {"measured peak", Unit::Bytes},
               {"measured within range"},
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
  static_assert(Count == 16);
  t.columns[PeakChange].is_change = true;
  t.columns[StepChange].is_change = true;
  const LadderRow* base = rep.rows.empty() ? nullptr : &rep.rows.front();
  auto peakOf = [&](const LadderRow& r) { return rep.cuda ? r.peak_allocated_blocks : r.peak_allocated; };
  for (const LadderRow& r : rep.rows) {
    std::vector<Cell> row(t.columns.size());
    row[Rung] = r.label;
    if (r.applicable && r.predicted) {
      row[Predicted] = bytesCell(peakOf(r));
      if (r.peak_low && r.peak_high) {
        row[Low] = bytesCell(*r.peak_low);
        row[High] = bytesCell(*r.peak_high);
      }
      if (base && &r != base && peakOf(*base) > 0)
        row[PeakChange] = static_cast<double>(peakOf(r)) / static_cast<double>(peakOf(*base)) - 1;
      row[PredictedStep] = optional(r.step_ms);
      if (base && &r != base && r.step_ms && base->step_ms && *base->step_ms > 0)
        row[StepChange] = *r.step_ms / *base->step_ms - 1;
      if (r.fits) row[Fits] = std::string(*r.fits ? "yes" : "no");
      if (r.max_batch) row[LargestBatch] = static_cast<double>(*r.max_batch);
      if (r.peak_reserved) row[Reserved] = bytesCell(*r.peak_reserved);
    }
    if (r.measured) {
      row[Measured] = bytesCell(rep.cuda ? r.measured->peak_allocated_blocks : r.measured->peak_allocated);
      if (r.measured_in_range) row[InRange] = std::string(*r.measured_in_range ? "yes" : "no");
      row[PeakError] = optional(r.peak_error);
      row[MeasuredStep] = optional(r.measured->step_ms);
      row[StepError] = optional(r.time_error);
    }
    if (!r.applicable) row[Note] = "not applicable: " + r.note;
    else if (!r.predicted) row[Note] = r.note;
    else if (!r.range_why.empty()) row[Note] = "range: " + r.range_why;
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
  if (rep.batch)
    out.push_back(rep.batch_key.starts_with("--")
                      ? fmt::format("The recorded batch: {} (the program's {} option).", *rep.batch, rep.batch_key)
                      : fmt::format("The recorded batch: {} (its '{}').", *rep.batch, rep.batch_key));
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
