#pragma once

#include "core/model/trace.h"

namespace sawtooth {

// Sets each event's phase to the innermost phase (latest begin) that covers its time on its
// device. Used by importers whose sources name ranges but do not tag events with them.
void assignPhases(Trace& trace);

}  // namespace sawtooth
