#pragma once
// A .sawtooth file's summaries and events read on demand (core/analysis/summary_source.h): the
// events from the file, the summaries from it or from the cache file built for it
// (io/summary_cache.h). Both opened read-only and hardened as every reader is (io/native_open.h),
// their schemas checked before any query, every query bounded by the guard (time, cancellation).

#include <map>
#include <memory>
#include <optional>

#include "core/analysis/summary_source.h"
#include "core/io/native_open.h"
#include "core/io/read_limits.h"
#include "core/io/summary_cache.h"

namespace sawtooth::native {

class FileSummarySource : public summary::SummarySource {
 public:
  static Result<std::unique_ptr<FileSummarySource>> open(const SummaryPlace& place, const ReadLimits& limits = {});

  Result<std::vector<summary::SeriesRow>> seriesRows() override;
  Result<std::vector<summary::AxisRow>> axisRows() override;
  Status nodes(DeviceId device, int series, int level, int64_t first, int64_t last,
               std::vector<std::pair<int64_t, summary::NodeValues>>& out) override;
  Status axisNodes(DeviceId device, int axis, int level, int64_t first, int64_t last,
                   std::vector<std::pair<int64_t, summary::AxisNode>>& out) override;
  Status events(uint64_t first, uint64_t last, std::optional<DeviceId> device, std::optional<sawtooth::Source> source,
                std::vector<summary::EventRow>& out) override;
  Status allocatorEvents(std::optional<DeviceId> device, uint64_t first, uint64_t last,
                         std::vector<summary::AllocatorRow>& out) override;
  Status phases(int64_t t0, int64_t t1, size_t max, std::vector<Phase>& out) override;
  Status spans(DeviceId device, summary::SpanKind kind, int64_t t0, int64_t t1, std::vector<summary::SpanRow>& out) override;
  Result<std::optional<Checkpoint>> checkpointAtOrBefore(DeviceId device, int64_t position) override;
  Result<bool> segmentStoredAtOrBefore(DeviceId device, int64_t position) override;
  Result<uint64_t> eventCount() override;
  Status moduleCalls(int64_t t0, int64_t t1, size_t max, std::vector<ModuleCall>& out) override;
  Result<std::optional<std::string>> phaseName(uint32_t id) override;
  Result<std::optional<Ooms>> ooms(size_t max) override;
  Result<std::optional<std::vector<summary::CategoryPeaksRow>>> categoryPeaks() override;

  // How many spans of a kind a device has (one count over the table's key, not a read of the rows).
  Result<int64_t> spanCount(DeviceId device, summary::SpanKind kind);

  const SummaryPlace& place() const { return place_; }
  // Every query from now on must end within `seconds` (the open's deadline, from the limits, would
  // otherwise bound the whole life of a source held open by a viewer).
  void setQueryDeadline(double seconds);
  sql::Database& eventsDatabase() { return events_; }

 private:
  FileSummarySource(SummaryPlace place, std::shared_ptr<sql::Guard> guard, Source events_source, sql::Database events,
                    std::optional<sql::Database> summaries)
      : place_(std::move(place)),
        guard_(std::move(guard)),
        events_source_(std::move(events_source)),
        events_(std::move(events)),
        summaries_(std::move(summaries)) {}
  sql::Database& summaryDb() { return summaries_ ? *summaries_ : events_; }
  Status prepare();

  SummaryPlace place_;
  std::shared_ptr<sql::Guard> guard_;
  Source events_source_;
  sql::Database events_;
  std::optional<Source> summaries_source_;
  std::optional<sql::Database> summaries_;
  // The longest span of a device and kind, and from which id on that figure must be looked at again
  // (rows added since, or a span still open then, may be longer): spans() searches by id from it.
  struct SpanReach {
    int64_t longest_ns = 0;
    int64_t recheck_from = INT64_MIN;
  };
  Result<int64_t> longestSpan(DeviceId device, summary::SpanKind kind);
  Result<std::optional<int64_t>> firstSpanBeginningAtOrAfter(DeviceId device, summary::SpanKind kind, int64_t t);
  std::map<std::pair<DeviceId, int>, SpanReach> span_reach_;
  bool has_modules_ = false;

  sql::Statement series_, axes_, nodes_, axis_nodes_, events_all_, events_of_, allocator_events_, allocator_events_all_, spans_, checkpoint_, checkpoint_segments_,
      checkpoint_blocks_, segment_stored_, count_, phase_begin_, phase_name_, phases_from_, phase_count_, span_ids_, span_at_, span_reach_from_,
      module_calls_;
};

}  // namespace sawtooth::native
