#pragma once
// The summaries of a .sawtooth file (format 3; docs/sawtooth-format.md), built in one pass over
// its events in file order (seq), so that a recorder appends them batch by batch and a reader
// opens a file of any length from them:
//   - per device, the pyramid of every series the timeline draws (summary_pyramid.h): allocated
//     and reserved on the allocator axis (a point per allocator event of the device), the
//     cumulative live bytes of the categories on it as well (the stacked view), the allocator's
//     fragmentation (reserved − allocated, external fragmentation, the largest free block: where
//     the allocator's state is replayed, as for its stored states), the driver's bytes
//     and the sampled device memory in use on axes of their own, and a source's own counters;
//     the axes' nodes say which events (seq) and times each node covers;
//   - per phase and per step and device: the peak of allocated bytes, where (point, event, time),
//     reserved then and at most, and the live bytes per category at the peak;
//   - an index from event numbers to times (chunks of 4,096 events), and the out-of-memory events;
//   - each category's peak over the whole trace, per device;
//   - the allocator's state every 65,536 allocator events of a device (its segments and blocks),
//     from which the segment map at any event replays a bounded stretch.
// The same rules as the finished trace's series (core/analysis/series.h): allocatedSign /
// reservedSign of each allocator event, times clamped so that they never run backwards. Driver
// records and samples may reach a file out of time order (CUPTI delivers in buffers): they wait,
// sorted by time, until an event 30 s later than them has been seen (or the end), then take their
// place; one that arrives after its place has gone is placed at the earliest time still open.
// That rule depends only on the events in file order, so a summary rebuilt from the events is the
// one the recorder wrote. Phases may arrive late too (NVTX ranges CUPTI delivers in its buffers,
// after the allocator events they cover): one that begins at or before a device's last point is
// filled from the recent points as if it had come first; older than those, the summaries are stale.
//
// Categories learnt after an event was written (recategorise) move the event's bytes from one
// cumulative category layer to another from its point on: nodes wholly after it move, the one
// that holds it is recomputed from its events; the phases whose peak lies after it move bytes
// between categories too (for an event among the recent points, the few spans closed since are
// known by key; only an older one's look through every span). A recorder's work per event stays
// the same however long the file grows as long as the events it recategorises are recent ones:
// an old event's costs the points and spans after it.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/analysis/allocator_machine.h"
#include "core/analysis/allocator_state.h"
#include "core/analysis/summary_pyramid.h"
#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth::summary {

inline constexpr uint64_t kIndexChunk = 4096;           // events per row of the event index
inline constexpr int64_t kCheckpointInterval = 65536;   // allocator events between allocator states
inline constexpr int64_t kLateNs = 30'000'000'000;      // how late a driver record or sample may come

// Axes and series as the file numbers them.
enum AxisId : int { kAllocatorAxis = 0, kDriverAxis = 1, kSampleAxis = 2, kAllocatedCounterAxis = 3, kReservedCounterAxis = 4 };
enum SeriesId : int {
  kAllocated = 0,
  kReserved = 1,
  kDriver = 2,
  kDeviceUsed = 3,
  kAllocatedCounter = 4,  // the source's own total (torch.profiler's "Total Allocated")
  kReservedCounter = 5,
  // The allocator's fragmentation after each allocator event, as its replay counts it
  // (allocator_history.h): where the builder replays the allocator (a device whose state is known).
  kReservedMinusAllocated = 6,
  kExternalFragmentation = 7,
  kLargestFreeBlock = 8,
  kFirstCategoryLayer = 16,  // layer c: live bytes of categories 0..c (the last, all of them, is kAllocated)
};
inline constexpr int kCategoryLayers = kCategoryCount - 1;
constexpr int layerSeries(int layer) { return kFirstCategoryLayer + layer; }
int axisOf(int series);
constexpr bool isFragmentationSeries(int series) { return series >= kReservedMinusAllocated && series <= kLargestFreeBlock; }
// The allocator axis' series whose values a stretch of events gives again (a fragmentation
// series needs the allocator's state: its nodes are what there is).
constexpr bool fromEventsAlone(int series) {
  return series == kAllocated || series == kReserved || series >= kFirstCategoryLayer;
}

enum class SpanKind : uint8_t { Phase = 0, Step = 1 };

struct AxisNode {
  int64_t points = 0;
  uint64_t first_seq = 0, last_seq = 0;  // the events of its first and last point
  int64_t t_first = 0, t_last = 0;       // their (clamped) times
  bool operator==(const AxisNode&) const = default;
};
AxisNode combine(const AxisNode& a, const AxisNode& b);

struct SeriesRow {
  DeviceId device = 0;
  int series = 0;
  int axis = 0;
  int64_t start = 0;   // the value before the first point
  int64_t points = 0;
  int64_t last = 0;    // the value after the last point
  bool operator==(const SeriesRow&) const = default;
};

// Driver records and samples that wait for their place (see above): the reader takes those with
// seq at or after pending_from_seq and a time after sealed_t from the events.
struct AxisRow {
  DeviceId device = 0;
  int axis = 0;
  int64_t points = 0;
  int64_t sealed_t = INT64_MIN;
  uint64_t pending_from_seq = UINT64_MAX;
  bool operator==(const AxisRow&) const = default;
};

struct SpanRow {
  DeviceId device = 0;
  SpanKind kind = SpanKind::Phase;
  int64_t id = 0;
  int64_t begin_ns = 0, end_ns = 0;
  bool open = true;                  // still growing (a recording in progress)
  int64_t first_point = 0, end_point = 0;  // allocator points [first, end) inside it
  int64_t peak_allocated = 0;
  int64_t peak_point = -1;           // -1: no point inside it
  uint64_t peak_seq = 0;
  int64_t peak_t = 0;
  int64_t reserved_at_peak = 0;
  int64_t max_reserved = 0;
  bool categorised = false;
  std::array<int64_t, kCategoryCount> at_peak{};  // live bytes per category at the peak
  bool operator==(const SpanRow&) const = default;
};

struct IndexRow {
  int64_t chunk = 0;  // events [chunk · 4096, chunk · 4096 + 4096)
  uint64_t first_seq = 0, last_seq = 0;
  int64_t t_min = 0, t_max = 0;  // their times as written (not clamped)
  bool operator==(const IndexRow&) const = default;
};

// Each category's most live bytes on a device over the whole trace (the plan against the count
// needs them). Not exact where a category was learnt for an event older than the builder keeps in
// memory (BuilderOptions::recent_points): a reader then counts them with a pass over the events.
struct CategoryPeaksRow {
  DeviceId device = 0;
  bool exact = true;
  bool categorised = false;  // some allocator event has a category other than unknown
  std::array<int64_t, kCategoryCount> peak{};
  bool operator==(const CategoryPeaksRow&) const = default;
};

// An allocator event as a leaf's recomputation needs it.
struct LeafEvent {
  uint64_t seq = 0;
  Action action = Action::Alloc;
  int64_t size = 0;
  Category category = Category::Unknown;
};

// Where the summaries go: the file (io/native_summaries.h), or memory.
class SummaryStore {
 public:
  virtual ~SummaryStore() = default;
  virtual Status putSeries(const SeriesRow& row) = 0;
  virtual Status putAxis(const AxisRow& row) = 0;
  virtual Status putAxisNode(DeviceId device, int axis, int level, int64_t node, const AxisNode& values) = 0;
  virtual Status putNode(DeviceId device, int series, int level, int64_t node, const NodeValues& values) = 0;
  virtual Status putSpan(const SpanRow& row) = 0;
  virtual Status putIndex(const IndexRow& row) = 0;
  // An out-of-memory event of a device.
  virtual Status putOom(DeviceId device, uint64_t seq) = 0;
  // A device's category peaks so far (written again at each flush).
  virtual Status putCategoryPeaks(const CategoryPeaksRow& row) = 0;
  virtual Status putCheckpoint(DeviceId device, int64_t position, uint64_t seq, const AllocatorState& state) = 0;

  // For categories learnt late (rare; the recent points are in memory):
  virtual Result<NodeValues> node(DeviceId device, int series, int level, int64_t node) = 0;
  virtual Result<AxisNode> axisNode(DeviceId device, int axis, int level, int64_t node) = 0;
  // Nodes [first, last] of a level moved by delta.
  virtual Status shiftNodes(DeviceId device, int series, int level, int64_t first, int64_t last, int64_t delta) = 0;
  // The nodes of `from` over its first `points` points (closed ones, and the open ones written at
  // a flush) copied as `to`: a device's category layers begin as copies of allocated.
  virtual Status copySeries(DeviceId device, int from, int to, int64_t points) = 0;
  // Closed spans whose peak lies at or after `from_point`: `bytes` moved from one category to another.
  virtual Status shiftSpans(DeviceId device, int64_t from_point, Category from, Category to, int64_t bytes) = 0;
  // The same for one span, by its key (the builder knows which spans hold a recent point's peak).
  virtual Status shiftSpan(DeviceId device, SpanKind kind, int64_t id, Category from, Category to, int64_t bytes) = 0;
  // The device's allocator events with seq in [first, last], in order.
  virtual Status leafEvents(DeviceId device, uint64_t first_seq, uint64_t last_seq, std::vector<LeafEvent>& out) = 0;
};

struct BuilderOptions {
  bool checkpoints = true;
  int64_t checkpoint_interval = kCheckpointInterval;
  size_t recent_points = size_t{1} << 16;  // allocator points per device whose seq is kept in memory
};

class SummaryBuilder {
 public:
  SummaryBuilder(SummaryStore& store, BuilderOptions options = {});
  ~SummaryBuilder();

  // A device's bytes before its first event (a snapshot or a window starting mid-run). Once the
  // device has points it cannot change: the summaries are then stale (rebuilt from the events).
  void setBaseline(DeviceId device, int64_t allocated, int64_t reserved);
  // The allocator's state before the device's first event (a snapshot's, reconstructed) and its
  // settings; without one the state is empty when the baseline is zero, and no states are stored
  // otherwise.
  void setAllocatorStart(DeviceId device, const AllocatorState& state, const AllocatorSettings& settings);
  void setAllocatorSettings(const AllocatorSettings& settings) { settings_ = settings; }
  // A phase (or annotation) from begin_ns to end_ns; `open` while it has not ended. Called again
  // when it ends. A phase named "forward" begins a step unless steps are given (setStepStarts).
  void addPhase(uint32_t id, const Phase& phase, bool open);
  // The steps' starts, ascending (core/analysis/step_alignment.h), instead of the forward phases.
  void setStepStarts(std::vector<int64_t> starts);

  // The next event of the file; seq must increase (otherwise the summaries are stale).
  Status add(uint64_t seq, const Event& event);
  // A source's own total (Counter) after event `seq` of `device`: "allocated" or "reserved".
  Status addCounter(DeviceId device, bool allocated, uint64_t seq, int64_t t_ns, int64_t value);
  // Event `seq` (device, action, size as written) now has category `to` instead of `from`: its
  // bytes count in the other category at every point from its own on.
  Status recategorise(uint64_t seq, DeviceId device, Action action, int64_t size, Category from, Category to);

  // Writes what covers every event added so far (open nodes, spans, the series' counts).
  Status flush();
  // The end of the events: waiting records take their place, open spans end; then flush().
  Status finish();

  uint64_t eventsSeen() const { return next_seq_; }
  bool stale() const { return !stale_reason_.empty(); }
  const std::string& staleReason() const { return stale_reason_; }
  size_t bytesResident() const;

 private:
  struct Device;
  struct SpanDef;
  struct Waiting;
  Status wait(Device& d, const Waiting& w);
  Status seal(Device& d, const Waiting& w);
  Device& device(DeviceId id);
  Status point(Device& d, int axis, uint64_t seq, int64_t t, std::span<const std::pair<int, int64_t>> values);
  Status sealWaiting(int64_t frontier, bool everything);
  Status categorise(Device& d);
  CategoryPeaksRow categoryPeaks(Device& d);
  Status shiftLayers(Device& d, int64_t from, int64_t to, Category a, Category b, int64_t bytes);
  Result<NodeValues> recomputeLeaf(Device& d, int series, int64_t leaf);
  Result<int64_t> pointOf(Device& d, uint64_t seq);
  void lateSpan(Device& d, const std::shared_ptr<SpanDef>& def);
  void openSpans(Device& d, int64_t t);
  Status closeSpans(Device& d, int64_t t, bool everything);
  void markStale(std::string reason);

  SummaryStore& store_;
  BuilderOptions options_;
  AllocatorSettings settings_;
  std::map<DeviceId, std::unique_ptr<Device>> devices_;
  // The phases and steps that may still take points (a recording's ended ones are let go: a day
  // has millions); the devices hold the ones they are filling.
  std::unordered_map<uint32_t, std::shared_ptr<SpanDef>> live_phases_;
  std::vector<bool> swept_phases_;  // by id: ended and let go (a bit each: a day has millions)
  std::vector<std::shared_ptr<SpanDef>> live_steps_;  // the last one may be open
  int64_t steps_ = 0;
  bool steps_given_ = false;
  uint64_t next_seq_ = 0;
  int64_t frontier_t_ = INT64_MIN;  // the latest time of any event seen
  Status late_failure_ = Ok{};      // a late span's write that failed (addPhase returns nothing): the next flush says
  int64_t swept_t_ = INT64_MIN;     // the frontier when ended phases were last let go
  int64_t earliest_waiting_ = INT64_MAX;  // the earliest driver record or sample waiting
  std::optional<IndexRow> chunk_;
  std::string stale_reason_;
  std::map<DeviceId, std::pair<int64_t, int64_t>> baselines_;
  std::map<DeviceId, std::pair<AllocatorState, AllocatorSettings>> starts_;
};

}  // namespace sawtooth::summary
