#pragma once
// Summaries kept in memory (summary_builder.h's SummaryStore): for a trace read whole, for tests,
// and for comparing a file's summaries with the ones its events give. Leaf recomputation reads
// the events it is given (the trace's).

#include <map>
#include <tuple>

#include "core/analysis/summary_builder.h"

namespace sawtooth::summary {

class MemoryStore : public SummaryStore {
 public:
  explicit MemoryStore(const EventStore* events = nullptr) : events_(events) {}

  using NodeKey = std::tuple<DeviceId, int, int, int64_t>;  // device, series or axis, level, node
  using SpanKey = std::tuple<DeviceId, int, int64_t>;       // device, kind, id
  using CheckpointKey = std::pair<DeviceId, int64_t>;        // device, position

  std::map<std::pair<DeviceId, int>, SeriesRow> series;
  std::map<std::pair<DeviceId, int>, AxisRow> axes;
  std::map<NodeKey, AxisNode> axis_nodes;
  std::map<NodeKey, NodeValues> nodes;
  std::map<SpanKey, SpanRow> spans;
  std::map<int64_t, IndexRow> index;
  std::vector<std::pair<DeviceId, uint64_t>> ooms;  // in file order
  std::map<DeviceId, CategoryPeaksRow> category_peaks;
  std::map<CheckpointKey, std::pair<uint64_t, AllocatorState>> checkpoints;

  Status putSeries(const SeriesRow& row) override;
  Status putAxis(const AxisRow& row) override;
  Status putAxisNode(DeviceId device, int axis, int level, int64_t node, const AxisNode& values) override;
  Status putNode(DeviceId device, int series, int level, int64_t node, const NodeValues& values) override;
  Status putSpan(const SpanRow& row) override;
  Status putIndex(const IndexRow& row) override;
  Status putOom(DeviceId device, uint64_t seq) override;
  Status putCategoryPeaks(const CategoryPeaksRow& row) override;
  Status putCheckpoint(DeviceId device, int64_t position, uint64_t seq, const AllocatorState& state) override;
  Result<NodeValues> node(DeviceId device, int series, int level, int64_t node) override;
  Result<AxisNode> axisNode(DeviceId device, int axis, int level, int64_t node) override;
  Status shiftNodes(DeviceId device, int series, int level, int64_t first, int64_t last, int64_t delta) override;
  Status copySeries(DeviceId device, int from, int to, int64_t points) override;
  Status shiftSpans(DeviceId device, int64_t from_point, Category from, Category to, int64_t bytes) override;
  Status shiftSpan(DeviceId device, SpanKind kind, int64_t id, Category from, Category to, int64_t bytes) override;
  Status leafEvents(DeviceId device, uint64_t first_seq, uint64_t last_seq, std::vector<LeafEvent>& out) override;

  size_t bytesResident() const;

 private:
  const EventStore* events_;
};

}  // namespace sawtooth::summary
