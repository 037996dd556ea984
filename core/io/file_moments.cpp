#include "core/io/file_moments.h"

#include <filesystem>

#include <fmt/format.h>

#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_loader.h"

namespace sawtooth {

Result<FileMoments> openFileMoments(const std::string& path, const ReadLimits& limits, Progress* progress) {
  FileMoments out;
  std::error_code ignored;
  if (std::filesystem::is_regular_file(path, ignored) && !isNativeFile(path))
    return Error{fmt::format("{} is not a .sawtooth file: --summaries reads a .sawtooth's summaries (convert it first: "
                             "`sawtooth-trace convert IN OUT.sawtooth`, or leave out --summaries)", path)};
  auto pages = EventPages::open(path, limits);
  if (!pages) return pages.error();
  out.pages = std::move(*pages);
  auto place = summariesOf(path, progress);
  if (!place) return place.error();
  auto source = native::FileSummarySource::open(*place, limits);
  if (!source) return source.error();
  out.model = std::make_unique<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*source)));
  if (Status st = out.model->refresh(); !st) return st.error();
  return out;
}

Result<std::optional<DeviceId>> FileMoments::largestPeakDevice() {
  std::optional<DeviceId> best;
  int64_t value = 0;
  for (const TimelineModel::Device& d : model->devices()) {
    if (d.allocator_points == 0) continue;
    auto peak = model->peak(d.device, summary::kAllocated);
    if (!peak) return peak.error();
    if (!best || peak->value > value) {
      best = d.device;
      value = peak->value;
    }
  }
  return best;
}

int64_t FileMoments::allocatorEvents(DeviceId device) const {
  const TimelineModel::Device* d = model->device(device);
  return d ? d->allocator_points : 0;
}

Result<SummaryMoment> FileMoments::at(DeviceId device, std::optional<int64_t> position, Progress* progress,
                                      bool state_only) {
  return momentFromSummaries(*model, tables(), device, position, progress, state_only);
}

}  // namespace sawtooth
