#include "core/analysis/fragmentation_frame.h"

#include <algorithm>
#include <cmath>

namespace sawtooth {
namespace {

using namespace summary;

constexpr int kLines[kFragmentationLines] = {kReservedMinusAllocated, kExternalFragmentation, kLargestFreeBlock};

}  // namespace

Result<std::optional<FragmentationExtent>> fragmentationExtent(TimelineModel& model, DeviceId device) {
  const TimelineModel::Device* d = model.device(device);
  if (!d) return std::optional<FragmentationExtent>();
  FragmentationExtent out;
  out.device = device;
  out.points = d->allocator_points;
  out.x_min_time = static_cast<double>(d->t_first);
  out.x_max_time = std::max(static_cast<double>(d->t_last), out.x_min_time + 1);
  for (int series : kLines) {
    const SeriesRow* s = d->find(series);
    if (!s) return std::optional<FragmentationExtent>();
    auto peak = model.peak(device, series);
    if (!peak) return peak.error();
    out.max_value = std::max(out.max_value, peak->value);
  }
  return std::optional<FragmentationExtent>(out);
}

Result<FragmentationFrame> fragmentationFrame(TimelineModel& model, const FragmentationRequest& request) {
  FragmentationFrame frame;
  frame.request = request;
  auto lines = model.queryMany(request.device, {kLines[0], kLines[1], kLines[2]}, request.by_time, request.x0,
                               request.x1, request.columns);
  if (!lines) return lines.error();
  for (size_t k = 0; k < lines->size() && k < frame.lines.size(); ++k) frame.lines[k] = std::move((*lines)[k]);
  return frame;
}

Result<int64_t> fragmentationPositionAt(TimelineModel& model, DeviceId device, double x, bool by_time) {
  const TimelineModel::Device* d = model.device(device);
  if (!d || d->allocator_points == 0) return int64_t{-1};
  if (!by_time) return std::clamp<int64_t>(static_cast<int64_t>(std::floor(x)), -1, d->allocator_points - 1);
  // The points at or before x: those before x + 1 ns.
  auto after = model.pointAtTime(device, kAllocatorAxis, static_cast<int64_t>(std::floor(x)) + 1);
  if (!after) return after.error();
  return std::min<int64_t>(*after, d->allocator_points) - 1;
}

}  // namespace sawtooth
