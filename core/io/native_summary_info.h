#pragma once
// What `sawtooth-trace info --summaries` reports: a .sawtooth file's figures read from its
// summaries alone (format 3, or the cache built once for an older file), never its events table,
// so that a recording of any length answers in a fraction of a second in bounded memory. What only
// a pass over every event gives (action counts, the memory-order check, the peak in allocator
// blocks) stays with the whole-file `info`.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/io/read_limits.h"
#include "core/model/action.h"
#include "core/model/event_store.h"
#include "core/util/result.h"

namespace sawtooth {

struct SummaryPeak {
  int64_t value = 0;
  int64_t point = -1;  // on the allocator axis; -1: the value before the first point
  uint64_t seq = 0;
  int64_t t_ns = 0;
};

struct SummaryDeviceInfo {
  DeviceId device = 0;
  std::string name;
  int64_t allocator_events = 0;
  int64_t t_first_ns = 0, t_last_ns = 0;
  SummaryPeak peak_allocated, peak_reserved;
  int64_t final_allocated = 0, final_reserved = 0;
  std::optional<int64_t> peak_driver, peak_device_used;
  bool categorised = false;
  std::array<int64_t, kCategoryCount> at_peak{};  // live bytes per category at the allocated peak
  int64_t steps = 0;                              // the steps recorded (spans of kind step)
  std::optional<int64_t> peak_step;               // the step holding the peak, its id
  int64_t peak_step_allocated = 0;
};

struct SummaryInfo {
  std::string path;
  std::string summaries_from;  // "the file" or the cache file's path
  std::string why_cached;      // why the summaries were built into the cache ("" when read from the file)
  uint64_t events = 0;
  std::map<std::string, std::string> meta;
  std::vector<SummaryDeviceInfo> devices;
  // From the summaries' index of out-of-memory events; nothing when they keep none (a file
  // written before it: `oom --summaries` looks with a pass).
  std::optional<uint64_t> oom_events;
  std::optional<std::pair<DeviceId, uint64_t>> first_oom;  // device, event
};

// Reads `path`'s figures from its summaries (building them into the cache first when the file has
// none: one pass over its events, said in why_cached).
Result<SummaryInfo> readSummaryInfo(const std::string& path, const ReadLimits& limits = {});

std::string summaryInfoText(const SummaryInfo& info);
std::string summaryInfoJson(const SummaryInfo& info, int indent = 2);

}  // namespace sawtooth
