#pragma once
// What a live timeline is fed while a recording runs (core/io/live_tail.h reads it from the file
// being written; core/analysis/live_timeline.h draws it): the columns of an event that the
// timeline needs, and each device's name and starting bytes.

#include <cstdint>
#include <optional>
#include <string>

#include "core/model/action.h"
#include "core/model/event_store.h"

namespace sawtooth {

// The columns of an event that a live timeline draws.
struct LiveRow {
  int64_t t_ns = 0;
  DeviceId device = 0;
  Source source = Source::Allocator;
  Action action = Action::Alloc;
  int64_t size = 0;
};

struct LiveDevice {
  DeviceId device = 0;
  std::string name;
  int64_t baseline_allocated = 0;
  int64_t baseline_reserved = 0;
  // Where a timeline follows several files (core/analysis/live_sources.h): the file's label
  // ("rank 1") and the device's id in that file. Empty and `device` otherwise.
  std::string label;
  std::optional<DeviceId> source_device;
};

}  // namespace sawtooth
