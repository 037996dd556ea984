#include "core/analysis/summary_memory.h"

#include <fmt/format.h>

namespace sawtooth::summary {

Status MemoryStore::putSeries(const SeriesRow& row) {
  series[{row.device, row.series}] = row;
  return Ok{};
}

Status MemoryStore::putAxis(const AxisRow& row) {
  axes[{row.device, row.axis}] = row;
  return Ok{};
}

Status MemoryStore::putAxisNode(DeviceId device, int axis, int level, int64_t node, const AxisNode& values) {
  axis_nodes[{device, axis, level, node}] = values;
  return Ok{};
}

Status MemoryStore::putNode(DeviceId device, int s, int level, int64_t node, const NodeValues& values) {
  nodes[{device, s, level, node}] = values;
  return Ok{};
}

Status MemoryStore::putSpan(const SpanRow& row) {
  spans[{row.device, static_cast<int>(row.kind), row.id}] = row;
  return Ok{};
}

Status MemoryStore::putIndex(const IndexRow& row) {
  index[row.chunk] = row;
  return Ok{};
}

Status MemoryStore::putOom(DeviceId device, uint64_t seq) {
  ooms.emplace_back(device, seq);
  return Ok{};
}

Status MemoryStore::putCategoryPeaks(const CategoryPeaksRow& row) {
  category_peaks[row.device] = row;
  return Ok{};
}

Status MemoryStore::putCheckpoint(DeviceId device, int64_t position, uint64_t seq, const AllocatorState& state) {
  checkpoints[{device, position}] = {seq, state};
  return Ok{};
}

Result<NodeValues> MemoryStore::node(DeviceId device, int s, int level, int64_t node) {
  auto it = nodes.find({device, s, level, node});
  if (it == nodes.end()) return Error{fmt::format("no node {} of level {} of series {} of device {}", node, level, s, device)};
  return it->second;
}

Result<AxisNode> MemoryStore::axisNode(DeviceId device, int axis, int level, int64_t node) {
  auto it = axis_nodes.find({device, axis, level, node});
  if (it == axis_nodes.end()) return Error{fmt::format("no node {} of level {} of axis {} of device {}", node, level, axis, device)};
  return it->second;
}

Status MemoryStore::shiftNodes(DeviceId device, int s, int level, int64_t first, int64_t last, int64_t delta) {
  for (auto it = nodes.lower_bound({device, s, level, first}); it != nodes.end(); ++it) {
    const auto& [d, series_id, l, n] = it->first;
    if (d != device || series_id != s || l != level || n > last) break;
    it->second = shifted(it->second, delta);
  }
  return Ok{};
}

Status MemoryStore::copySeries(DeviceId device, int from, int to, int64_t /*points: all are copied*/) {
  std::vector<std::pair<NodeKey, NodeValues>> copies;
  for (const auto& [key, values] : nodes)
    if (std::get<0>(key) == device && std::get<1>(key) == from)
      copies.emplace_back(NodeKey{device, to, std::get<2>(key), std::get<3>(key)}, values);
  for (auto& [key, values] : copies) nodes[key] = values;
  return Ok{};
}

Status MemoryStore::shiftSpans(DeviceId device, int64_t from_point, Category from, Category to, int64_t bytes) {
  for (auto& [key, row] : spans) {
    if (row.device != device || row.peak_point < from_point) continue;
    row.at_peak[static_cast<size_t>(from)] -= bytes;
    row.at_peak[static_cast<size_t>(to)] += bytes;
  }
  return Ok{};
}

Status MemoryStore::shiftSpan(DeviceId device, SpanKind kind, int64_t id, Category from, Category to, int64_t bytes) {
  auto it = spans.find(SpanKey{device, static_cast<int>(kind), id});
  if (it == spans.end()) return Ok{};
  it->second.at_peak[static_cast<size_t>(from)] -= bytes;
  it->second.at_peak[static_cast<size_t>(to)] += bytes;
  return Ok{};
}

Status MemoryStore::leafEvents(DeviceId device, uint64_t first_seq, uint64_t last_seq, std::vector<LeafEvent>& out) {
  out.clear();
  if (!events_) return Error{"no events to read"};
  for (uint64_t i = first_seq; i <= last_seq && i < events_->size(); ++i)
    if (events_->device()[i] == device && events_->source()[i] == Source::Allocator)
      out.push_back(LeafEvent{i, events_->action()[i], events_->sizes()[i], events_->category()[i]});
  return Ok{};
}

size_t MemoryStore::bytesResident() const {
  // Map nodes: about 48 bytes of overhead each beside the key and the value.
  return nodes.size() * (48 + sizeof(NodeKey) + sizeof(NodeValues)) +
         axis_nodes.size() * (48 + sizeof(NodeKey) + sizeof(AxisNode)) + spans.size() * (48 + sizeof(SpanRow)) +
         index.size() * (48 + sizeof(IndexRow));
}

}  // namespace sawtooth::summary
