#pragma once
// A diff of two traces (or two runs of one recording) by call site or by module: allocations are
// matched by their site (the user's innermost frame, normalised: file, function, line) — or their
// module's full name — and category; for each, the bytes alive at each side's peak and the bytes
// allocated over each side. Each side's live bytes sum exactly to its peak on the device with the
// largest peak ("(no stack)", "(outside modules)" hold what has no frames, no module). When one
// side has no categories (a PyTorch snapshot against a recording), rows match by site alone.
// Rows are sorted by growth; a summary says in words what changed at the peak.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/live_allocations.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

// Within a run: bytes the run freed that it had not allocated (negative), as the run's own peak
// counts them.
inline constexpr std::string_view kBeforeRunSite = "(allocated before the run)";

struct DiffSide {
  std::string file;
  std::string run;                 // empty: the whole trace
  int16_t device = 0;
  int64_t peak_allocated_bytes = 0;
  int64_t peak_position = -1;      // allocator-event position of the peak on that device; -1: the start
  std::string peak_phase;
  int64_t total_allocated = 0;     // requested bytes of every allocation in scope
};

enum class DiffBy : uint8_t { Site, Module };

struct DiffRow {
  std::string site;  // the call site's label, or the module's full name (DiffBy::Module)
  Category category = Category::Unknown;
  int64_t a_bytes = 0, b_bytes = 0;
  int64_t a_total_allocated = 0, b_total_allocated = 0;
  int64_t a_count = 0, b_count = 0;  // allocations alive at the peak
  int64_t growth() const;
};

struct PeakChange {
  int64_t delta = 0;
  double fraction = 0;             // delta / a's peak (0 when a's peak is 0)
  std::vector<size_t> grew;        // rows that explain the growth, largest first
  std::vector<size_t> shrank;      // rows that shrank most, largest first
  size_t new_sites = 0;            // alive at b's peak only
  size_t gone_sites = 0;           // alive at a's peak only
  std::vector<std::string> lines;  // the summary in words
};

struct TraceDiff {
  DiffBy by = DiffBy::Site;
  bool by_category = true;  // false: one side has no categories, so rows are by site (or module) alone
  // What each row allocated over each side (a_total_allocated, b_total_allocated) was counted: not
  // when a side is a file too large to read whole (those stay 0).
  bool totals_known = true;
  DiffSide a, b;
  std::vector<DiffRow> rows;  // by growth, largest first; then by site
  PeakChange change;
};

// `run_a` / `run_b` select a run by name (or index) in each trace; empty: the whole trace. By
// module, a trace without modules is refused with the reason (module_memory.h).
Result<TraceDiff> diffTraces(const Trace& a, const std::string& a_file, const Trace& b, const std::string& b_file,
                             const std::string& run_a = {}, const std::string& run_b = {}, DiffBy by = DiffBy::Site);

struct SummaryMoment;
// One side of a diff: a trace in memory (and a run of it, by name or index; empty: all of it), or
// a file too large to read whole — its tables (EventPages::tables()) and its moment at the peak of
// the device with the largest peak (summary_moment.h).
struct DiffInput {
  const Trace* trace = nullptr;
  const SummaryMoment* moment = nullptr;
  std::string file;
  std::string run;
  // With a moment: what its device allocated over the whole file (allocatedTotalsFromSummaries);
  // without them the diff's totals are not known.
  const std::vector<AllocatedTotal>* totals = nullptr;
};
Result<TraceDiff> diffInputs(const DiffInput& a, const DiffInput& b, DiffBy by = DiffBy::Site);

}  // namespace sawtooth
