#include "core/model/phase_assignment.h"

#include <algorithm>
#include <numeric>

namespace sawtooth {

void assignPhases(Trace& trace) {
  if (trace.phases.empty()) return;
  std::vector<uint32_t> order(trace.phases.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return trace.phases[a].begin_ns < trace.phases[b].begin_ns; });
  std::vector<int64_t> begins(order.size());
  // latest_end[k]: the latest end among the first k+1 phases by begin. Once it is before t, no
  // earlier phase covers t and the search stops: an event between phases costs a binary search,
  // not a walk back over every phase before it.
  std::vector<int64_t> latest_end(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    begins[k] = trace.phases[order[k]].begin_ns;
    latest_end[k] = std::max(k ? latest_end[k - 1] : INT64_MIN, trace.phases[order[k]].end_ns);
  }

  auto& events = trace.events;
  const auto& t = events.tNs();
  const auto& dev = events.device();
  size_t k_next = 0;  // phases begun at or before the previous event's time
  for (size_t i = 0; i < events.size(); ++i) {
    // Events mostly come in time order: walk on from where the previous one was, and search only
    // when time goes back.
    size_t k;
    if (i > 0 && t[i] >= t[i - 1]) {
      k = k_next;
      while (k < begins.size() && begins[k] <= t[i]) ++k;
    } else {
      k = static_cast<size_t>(std::upper_bound(begins.begin(), begins.end(), t[i]) - begins.begin());
    }
    k_next = k;
    // Latest-begun phase first; the first that still covers t on this device wins.
    while (k > 0 && latest_end[k - 1] >= t[i]) {
      const Phase& p = trace.phases[order[--k]];
      if (p.end_ns >= t[i] && (p.device == kAllDevices || p.device == dev[i])) {
        events.setPhase(i, order[k]);
        break;
      }
    }
  }
}

}  // namespace sawtooth
