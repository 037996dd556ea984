#pragma once
// Chrome trace JSON with one counter track per device and series (allocated, reserved, driver,
// device_used) and the phases as slices; Perfetto and chrome://tracing open it.

#include <ostream>
#include <string>

#include "core/model/trace.h"
#include "core/util/result.h"

namespace sawtooth {

void writeChromeTrace(const Trace& trace, std::ostream& out);
Status exportChromeTrace(const Trace& trace, const std::string& path);

}  // namespace sawtooth
