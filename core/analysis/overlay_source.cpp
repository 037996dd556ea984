#include "core/analysis/overlay_source.h"

#include <algorithm>

#include "core/analysis/comparison.h"

namespace sawtooth::summary {
namespace {

constexpr DeviceId kFirstB = kCompareOffset + kCpuDevice;  // B's host

Error notDrawn(const char* what) {
  return Error{std::string(what) + " of a comparison is read from its trace's own tab (the overlay draws timelines)"};
}

}  // namespace

Result<std::unique_ptr<OverlaySource>> OverlaySource::make(std::shared_ptr<SummarySource> a, std::shared_ptr<SummarySource> b,
                                                           StepWarp b_time) {
  if (!a || !b) return Error{"a comparison needs two traces"};
  auto count = a->eventCount();
  if (!count) return count.error();
  return std::unique_ptr<OverlaySource>(new OverlaySource(std::move(a), std::move(b), std::move(b_time), *count));
}

bool OverlaySource::isB(DeviceId device) { return device >= kFirstB; }

DeviceId OverlaySource::own(DeviceId device) { return isB(device) ? device - kCompareOffset : device; }

std::pair<int64_t, int64_t> OverlaySource::bWindow(int64_t t0, int64_t t1) const {
  const int64_t a = warp_.inverse(t0), b = warp_.inverse(t1);
  const int64_t lo = a == INT64_MIN ? a : a - 1;
  const int64_t hi = b == INT64_MAX ? b : b + 1;
  return {lo, std::max(lo, hi)};
}

Result<std::vector<SeriesRow>> OverlaySource::seriesRows() {
  auto rows = a_->seriesRows();
  if (!rows) return rows.error();
  auto more = b_->seriesRows();
  if (!more) return more.error();
  for (SeriesRow r : *more) {
    r.device += kCompareOffset;
    rows->push_back(r);
  }
  return rows;
}

Result<std::vector<AxisRow>> OverlaySource::axisRows() {
  auto rows = a_->axisRows();
  if (!rows) return rows.error();
  auto more = b_->axisRows();
  if (!more) return more.error();
  for (AxisRow r : *more) {
    r.device += kCompareOffset;
    if (r.sealed_t != INT64_MIN) r.sealed_t = warp_(r.sealed_t);
    if (r.pending_from_seq != UINT64_MAX) r.pending_from_seq += a_events_;
    rows->push_back(r);
  }
  return rows;
}

Status OverlaySource::nodes(DeviceId device, int series, int level, int64_t first, int64_t last,
                            std::vector<std::pair<int64_t, NodeValues>>& out) {
  return sideOf(device).nodes(own(device), series, level, first, last, out);
}

Status OverlaySource::axisNodes(DeviceId device, int axis, int level, int64_t first, int64_t last,
                                std::vector<std::pair<int64_t, AxisNode>>& out) {
  if (Status st = sideOf(device).axisNodes(own(device), axis, level, first, last, out); !st) return st;
  if (isB(device))
    for (auto& [n, node] : out) {
      node.first_seq += a_events_;
      node.last_seq += a_events_;
      node.t_first = warp_(node.t_first);
      node.t_last = warp_(node.t_last);
    }
  return Ok{};
}

Status OverlaySource::events(uint64_t first, uint64_t last, std::optional<DeviceId> device, std::optional<Source> source,
                             std::vector<EventRow>& out) {
  out.clear();
  if (last < first) return Ok{};
  if ((!device || !isB(*device)) && first < a_events_)
    if (Status st = a_->events(first, std::min(last, a_events_ - 1), device, source, out); !st) return st;
  if ((device && !isB(*device)) || last < a_events_) return Ok{};
  const std::optional<DeviceId> b_device = device ? std::optional<DeviceId>(own(*device)) : std::nullopt;
  if (Status st = b_->events(std::max(first, a_events_) - a_events_, last - a_events_, b_device, source, b_events_); !st)
    return st;
  for (EventRow& r : b_events_) {
    r.seq += a_events_;
    r.event.device += kCompareOffset;
    r.event.t_ns = warp_(r.event.t_ns);
    out.push_back(std::move(r));
  }
  return Ok{};
}

Status OverlaySource::allocatorEvents(std::optional<DeviceId> device, uint64_t first, uint64_t last,
                                      std::vector<AllocatorRow>& out) {
  out.clear();
  if (last < first) return Ok{};
  if ((!device || !isB(*device)) && first < a_events_)
    if (Status st = a_->allocatorEvents(device, first, std::min(last, a_events_ - 1), out); !st) return st;
  if ((device && !isB(*device)) || last < a_events_) return Ok{};
  const std::optional<DeviceId> b_device = device ? std::optional<DeviceId>(own(*device)) : std::nullopt;
  if (Status st = b_->allocatorEvents(b_device, std::max(first, a_events_) - a_events_, last - a_events_, b_allocator_); !st)
    return st;
  for (AllocatorRow r : b_allocator_) {
    r.seq += a_events_;
    r.device += kCompareOffset;
    r.t_ns = warp_(r.t_ns);
    out.push_back(r);
  }
  return Ok{};
}

Status OverlaySource::phases(int64_t t0, int64_t t1, size_t max, std::vector<Phase>& out) {
  out.clear();
  std::vector<Phase> b;
  if (Status st = a_->phases(t0, t1, max, out); !st) return st;
  const auto [b0, b1] = bWindow(t0, t1);
  if (Status st = b_->phases(b0, b1, max, b); !st) return st;
  for (Phase& p : out) p.name = "A: " + p.name;
  for (Phase& p : b) {
    if (p.device != kAllDevices) p.device += kCompareOffset;
    p.begin_ns = warp_(p.begin_ns);
    p.end_ns = warp_(p.end_ns);
    if (p.end_ns < t0 || p.begin_ns >= t1) continue;  // the widened window's extra
    p.name = "B: " + p.name;
    out.push_back(std::move(p));
  }
  std::stable_sort(out.begin(), out.end(), [](const Phase& x, const Phase& y) { return x.begin_ns < y.begin_ns; });
  if (out.size() > max) out.resize(max);
  return Ok{};
}

Status OverlaySource::spans(DeviceId device, SpanKind kind, int64_t t0, int64_t t1, std::vector<SpanRow>& out) {
  if (!isB(device)) return a_->spans(device, kind, t0, t1, out);
  const auto [b0, b1] = bWindow(t0, t1);
  if (Status st = b_->spans(own(device), kind, b0, b1, out); !st) return st;
  std::vector<SpanRow> kept;
  for (SpanRow r : out) {
    r.device = device;
    r.begin_ns = warp_(r.begin_ns);
    r.end_ns = warp_(r.end_ns);
    r.peak_t = warp_(r.peak_t);
    r.peak_seq += a_events_;
    if (r.end_ns >= t0 && r.begin_ns < t1) kept.push_back(r);
  }
  out = std::move(kept);
  return Ok{};
}

Result<std::optional<SummarySource::Checkpoint>> OverlaySource::checkpointAtOrBefore(DeviceId, int64_t) {
  return notDrawn("the allocator's state");
}

Result<bool> OverlaySource::segmentStoredAtOrBefore(DeviceId, int64_t) { return notDrawn("the allocator's state"); }

Result<uint64_t> OverlaySource::eventCount() {
  auto b = b_->eventCount();
  if (!b) return b.error();
  return a_events_ + *b;
}

Status OverlaySource::moduleCalls(int64_t, int64_t, size_t, std::vector<ModuleCall>&) { return notDrawn("a module call"); }

Result<std::optional<std::string>> OverlaySource::phaseName(uint32_t) { return notDrawn("a phase's name"); }

Result<std::optional<SummarySource::Ooms>> OverlaySource::ooms(size_t) { return notDrawn("an out-of-memory"); }

Result<std::optional<std::vector<CategoryPeaksRow>>> OverlaySource::categoryPeaks() {
  return notDrawn("a category's peak");
}

}  // namespace sawtooth::summary
