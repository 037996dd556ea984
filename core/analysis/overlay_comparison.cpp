#include "core/analysis/overlay_comparison.h"

#include <algorithm>

#include <fmt/format.h>

namespace sawtooth {
namespace {

constexpr size_t kMaxSteps = size_t{4} << 20;
constexpr int kStepReads = 256;  // stretches of time the steps are read in

std::vector<DevicePeaks> devicePeaks(TimelineModel& model) {
  std::vector<DevicePeaks> out;
  for (const TimelineModel::Device& d : model.devices()) {
    DevicePeaks p{d.device, {}};
    for (SeriesKind kind : {SeriesKind::Allocated, SeriesKind::Reserved, SeriesKind::Driver, SeriesKind::DeviceUsed}) {
      if (!drawsLine(d, kind)) continue;
      auto peak = model.peak(d.device, seriesFor(d, kind));
      if (!peak) continue;
      p.peaks.emplace_back(kind, peak->value);
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::shared_ptr<TimelineModel>> modelOf(const OverlaySide& side) {
  if (!side.source || !side.tables) return Error{fmt::format("{}: nothing to compare (not read)", side.name)};
  auto model = std::make_shared<TimelineModel>(side.source);
  if (Status st = model->refresh(); !st) return Error{fmt::format("{}: {}", side.name, st.error().message)};
  return model;
}

}  // namespace

Result<StepStarts> stepStartsFromSummaries(TimelineModel& model, Progress* progress) {
  const TimelineModel::Device* device = nullptr;
  for (const TimelineModel::Device& d : model.devices())
    if (!device || d.allocator_points > device->allocator_points) device = &d;
  StepStarts out;
  if (!device || device->allocator_points == 0) return out;
  const double span = static_cast<double>(device->t_last) - static_cast<double>(device->t_first);
  std::vector<summary::SpanRow> rows;
  for (int k = 0; k < kStepReads; ++k) {
    if (progress && progress->cancelled()) return Error{"cancelled"};
    const int64_t lo = k == 0 ? INT64_MIN : device->t_first + static_cast<int64_t>(span * k / kStepReads);
    const int64_t hi =
        k + 1 == kStepReads ? INT64_MAX : device->t_first + static_cast<int64_t>(span * (k + 1) / kStepReads);
    if (hi <= lo) continue;
    if (Status st = model.source().spans(device->device, summary::SpanKind::Step, lo, hi, rows); !st) return st.error();
    for (const summary::SpanRow& r : rows)
      if (r.begin_ns >= lo && r.begin_ns < hi) out.t_ns.push_back(r.begin_ns);
    if (out.t_ns.size() > kMaxSteps)
      return Error{fmt::format("more than {} steps: too many to stretch one trace's onto the other's", kMaxSteps)};
    if (progress) progress->report(k + 1, kStepReads);
  }
  std::sort(out.t_ns.begin(), out.t_ns.end());
  out.t_ns.erase(std::unique(out.t_ns.begin(), out.t_ns.end()), out.t_ns.end());
  if (out.t_ns.size() >= 2) out.source = "summaries' steps";
  else out.t_ns.clear();
  return out;
}

Result<OverlayComparison> overlayTraces(const OverlaySide& a, const OverlaySide& b, Alignment alignment,
                                        Progress* progress) {
  auto model_a = modelOf(a);
  if (!model_a) return model_a.error();
  auto model_b = modelOf(b);
  if (!model_b) return model_b.error();
  OverlayComparison out;
  out.alignment = alignment;
  out.by_time = alignment != Alignment::EventIndex;
  StepWarp warp;
  std::string steps;
  if (alignment == Alignment::Step) {
    auto starts = [progress](const OverlaySide& side, TimelineModel& model) -> Result<StepStarts> {
      if (side.steps) return *side.steps;
      return stepStartsFromSummaries(model, progress);
    };
    auto sa = starts(a, **model_a);
    if (!sa) return Error{fmt::format("{}: {}", a.name, sa.error().message)};
    auto sb = starts(b, **model_b);
    if (!sb) return Error{fmt::format("{}: {}", b.name, sb.error().message)};
    steps = stepsNote(*sa, *sb);
    if (!sa->source.empty() && !sb->source.empty()) warp = StepWarp(sa->t_ns, sb->t_ns);
  }
  if (progress && progress->cancelled()) return Error{"cancelled"};
  out.note = alignmentNote(a.name, b.name, alignment, steps);
  out.differences = differencesTable(devicePeaks(**model_a), devicePeaks(**model_b), *a.tables, *b.tables);
  auto source = summary::OverlaySource::make(a.source, b.source, std::move(warp));
  if (!source) return source.error();
  out.model = std::make_shared<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  if (Status st = out.model->refresh(); !st) return st.error();
  auto overview = overviewOf(*out.model);
  if (!overview) return overview.error();
  for (TimelineOverview::Device& d : overview->devices)
    d.name = d.device >= kCompareOffset + kCpuDevice ? "B " + b.tables->deviceName(d.device - kCompareOffset)
                                                     : "A " + a.tables->deviceName(d.device);
  out.overview = std::move(*overview);
  return out;
}

}  // namespace sawtooth
