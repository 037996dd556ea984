#pragma once
// Reading a trace's summaries (summary_builder.h) and its events by range, wherever they are: a
// .sawtooth file read on demand (io/native_summary_source.h), or a trace held in memory
// (MemorySource, below). What the timeline model (timeline_model.h) and every view's first
// figures are computed from, so that the same code draws a 250 M-event file and a small snapshot.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/analysis/summary_builder.h"
#include "core/analysis/summary_memory.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth::summary {

// An event as the timeline reads it back.
struct EventRow {
  uint64_t seq = 0;
  Event event;
};

// An allocator event as a leaf's values need it (a narrower read).
struct AllocatorRow {
  uint64_t seq = 0;
  int64_t t_ns = 0;
  Action action = Action::Alloc;
  int64_t size = 0;
  Category category = Category::Unknown;
  DeviceId device = 0;
};

class SummarySource {
 public:
  virtual ~SummarySource() = default;

  // Every series and axis row (a few per device).
  virtual Result<std::vector<SeriesRow>> seriesRows() = 0;
  virtual Result<std::vector<AxisRow>> axisRows() = 0;
  // Nodes [first, last] of one level, in order (as many as exist).
  virtual Status nodes(DeviceId device, int series, int level, int64_t first, int64_t last,
                       std::vector<std::pair<int64_t, NodeValues>>& out) = 0;
  virtual Status axisNodes(DeviceId device, int axis, int level, int64_t first, int64_t last,
                           std::vector<std::pair<int64_t, AxisNode>>& out) = 0;
  // The events with seq in [first, last], in order; only a device's and a source's when given.
  virtual Status events(uint64_t first, uint64_t last, std::optional<DeviceId> device, std::optional<Source> source,
                        std::vector<EventRow>& out) = 0;
  // A device's allocator events with seq in [first, last], in order (every device's without one).
  virtual Status allocatorEvents(std::optional<DeviceId> device, uint64_t first, uint64_t last,
                                 std::vector<AllocatorRow>& out) = 0;
  // The phases that meet [t0, t1), at most `max` (found by their begin times, which follow their
  // ids in a recording; a phase that began more than 4,096 phases before t0 is not looked for).
  virtual Status phases(int64_t t0, int64_t t1, size_t max, std::vector<Phase>& out) = 0;
  // The spans of a device and kind whose time range meets [t0, t1).
  virtual Status spans(DeviceId device, SpanKind kind, int64_t t0, int64_t t1, std::vector<SpanRow>& out) = 0;
  // The allocator's stored state at or before `position` of a device: its position, the event it
  // follows and the state; nothing when the file has none.
  struct Checkpoint {
    int64_t position = 0;
    uint64_t seq = 0;
    AllocatorState state;
  };
  virtual Result<std::optional<Checkpoint>> checkpointAtOrBefore(DeviceId device, int64_t position) = 0;
  // Whether any stored state of the device at or before `position` holds a segment (one look at
  // the stored segments' key, not a read of the states; INT64_MAX: any of them).
  virtual Result<bool> segmentStoredAtOrBefore(DeviceId device, int64_t position) = 0;
  // The number of events (max seq + 1), and the events the summaries cover.
  virtual Result<uint64_t> eventCount() = 0;
  // The module calls that begin in [t0, t1), by their begin (none where the trace records none).
  // A file keeps no index on them: one pass over its calls. Past `max` of them it stops, holding
  // max + 1 (the caller says there were too many).
  virtual Status moduleCalls(int64_t t0, int64_t t1, size_t max, std::vector<ModuleCall>& out) = 0;
  // The name of the phase an event names (its id); nothing for an id the trace does not hold.
  virtual Result<std::optional<std::string>> phaseName(uint32_t id) = 0;
  // The out-of-memory events: the first `max` in file order (device, seq) and how many in all;
  // nothing when the summaries keep no index of them (a file written before it had one).
  struct Ooms {
    std::vector<std::pair<DeviceId, uint64_t>> first;
    uint64_t count = 0;
  };
  virtual Result<std::optional<Ooms>> ooms(size_t max) = 0;
  // Each device's category peaks (a row per device with allocator events); nothing when the
  // summaries keep none (a file written before they did).
  virtual Result<std::optional<std::vector<CategoryPeaksRow>>> categoryPeaks() = 0;
};

// The summaries of a trace in memory: built from its events once (as a file would hold them).
class MemorySource : public SummarySource {
 public:
  // `trace` must outlive the source.
  static Result<std::unique_ptr<MemorySource>> build(const Trace& trace, const BuilderOptions& options = {});

  Result<std::vector<SeriesRow>> seriesRows() override;
  Result<std::vector<AxisRow>> axisRows() override;
  Status nodes(DeviceId device, int series, int level, int64_t first, int64_t last,
               std::vector<std::pair<int64_t, NodeValues>>& out) override;
  Status axisNodes(DeviceId device, int axis, int level, int64_t first, int64_t last,
                   std::vector<std::pair<int64_t, AxisNode>>& out) override;
  Status events(uint64_t first, uint64_t last, std::optional<DeviceId> device, std::optional<Source> source,
                std::vector<EventRow>& out) override;
  Status allocatorEvents(std::optional<DeviceId> device, uint64_t first, uint64_t last,
                         std::vector<AllocatorRow>& out) override;
  Status phases(int64_t t0, int64_t t1, size_t max, std::vector<Phase>& out) override;
  Status spans(DeviceId device, SpanKind kind, int64_t t0, int64_t t1, std::vector<SpanRow>& out) override;
  Result<std::optional<Checkpoint>> checkpointAtOrBefore(DeviceId device, int64_t position) override;
  Result<bool> segmentStoredAtOrBefore(DeviceId device, int64_t position) override;
  Result<uint64_t> eventCount() override;
  Status moduleCalls(int64_t t0, int64_t t1, size_t max, std::vector<ModuleCall>& out) override;
  Result<std::optional<std::string>> phaseName(uint32_t id) override;
  Result<std::optional<Ooms>> ooms(size_t max) override;
  Result<std::optional<std::vector<CategoryPeaksRow>>> categoryPeaks() override;

  const MemoryStore& store() const { return store_; }
  size_t bytesResident() const { return store_.bytesResident(); }

 private:
  explicit MemorySource(const Trace& trace) : trace_(trace), store_(&trace.events) {}
  const Trace& trace_;
  MemoryStore store_;
};

}  // namespace sawtooth::summary
