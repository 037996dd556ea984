#pragma once
// A .sawtooth file read on demand for its moments (core/analysis/summary_moment.h): its tables
// (io/event_pages.h: stacks, modules, devices, runs; no events) and the timeline model over its
// summaries (built into the cache first when it has none: one pass over its events). What
// `sawtooth-trace modules|segments|diff --summaries` and the benchmarks read a file of any length
// with, in memory bounded by what is alive at a moment.

#include <memory>
#include <optional>
#include <string>

#include "core/analysis/summary_moment.h"
#include "core/analysis/timeline_model.h"
#include "core/io/event_pages.h"
#include "core/io/read_limits.h"
#include "core/util/result.h"

namespace sawtooth {

struct FileMoments {
  std::shared_ptr<const EventPages> pages;
  std::unique_ptr<TimelineModel> model;

  const Trace& tables() const { return *pages->tables(); }
  // The device with the largest peak of allocated bytes; nothing when no device has allocator events.
  Result<std::optional<DeviceId>> largestPeakDevice();
  // The device's allocator events (0 when it has none).
  int64_t allocatorEvents(DeviceId device) const;
  Result<SummaryMoment> at(DeviceId device, std::optional<int64_t> position, Progress* progress = nullptr,
                           bool state_only = false);
};

Result<FileMoments> openFileMoments(const std::string& path, const ReadLimits& limits = {}, Progress* progress = nullptr);

}  // namespace sawtooth
