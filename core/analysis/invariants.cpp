#include "core/analysis/invariants.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/util/format_bytes.h"

namespace sawtooth {
InvariantReport checkMemoryOrder(const Trace& trace, const DeviceSeries& ds) {
  InvariantReport r;
  (void)trace;
  auto violation = [&](std::string text) {
    if (r.violations++ == 0) r.first_violation = std::move(text);
  };
  const Series& a = ds.allocated;
  const Series& res = ds.reserved;
  if (a.size() == res.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      ++r.points_checked;
      if (a.value[i] > res.value[i])
        violation(fmt::format("at {} (allocator event {}): allocated {} > reserved {}", formatDuration(a.t(i)), i,
                              formatBytes(a.value[i]), formatBytes(res.value[i])));
    }
  }
  r.has_driver = ds.driver.has_value();
  r.has_device_used = ds.device_used.has_value();
  if (!ds.device_used) return r;
  for (size_t i = 0; i < ds.device_used->size(); ++i) {
    const int64_t t = ds.device_used->t(i);
    const int64_t used = ds.device_used->value[i];
    const int64_t alloc = a.valueAtTime(t), reserved = res.valueAtTime(t);
    ++r.samples_checked;
    if (alloc > reserved)
      violation(fmt::format("at {}: allocated {} > reserved {}", formatDuration(t), formatBytes(alloc), formatBytes(reserved)));
    if (ds.driver) {
      const int64_t driver = ds.driver->valueAtTime(t);
      if (reserved > driver)
        violation(fmt::format("at {}: reserved {} > driver {}", formatDuration(t), formatBytes(reserved), formatBytes(driver)));
      if (driver > used)
        violation(fmt::format("at {}: driver {} > device used {}", formatDuration(t), formatBytes(driver), formatBytes(used)));
    } else if (reserved > used) {
      violation(fmt::format("at {}: reserved {} > device used {}", formatDuration(t), formatBytes(reserved), formatBytes(used)));
    }
  }
  return r;
}

}  // namespace sawtooth
