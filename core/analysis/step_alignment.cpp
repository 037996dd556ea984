#include "core/analysis/step_alignment.h"

#include <algorithm>
#include <cmath>

namespace sawtooth {
namespace {

std::vector<int64_t> sortedUnique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

StepStarts findStepStarts(const Trace& trace) {
  return findStepStarts(trace.phases, trace.events.empty() ? 0 : trace.events.tNs().front());
}

StepStarts findStepStarts(const std::vector<Phase>& phases, int64_t first_event_ns) {
  std::vector<int64_t> forward, profiler, optimizer_ends;
  for (const Phase& p : phases) {
    if (p.kind == PhaseKind::Phase && p.name == "forward") forward.push_back(p.begin_ns);
    if (p.kind == PhaseKind::Annotation && p.name.starts_with("ProfilerStep#")) profiler.push_back(p.begin_ns);
    if (p.kind == PhaseKind::Annotation && p.name.starts_with("Optimizer.step#")) optimizer_ends.push_back(p.end_ns);
  }
  forward = sortedUnique(std::move(forward));
  if (forward.size() >= 2) return {forward, "forward phases"};
  profiler = sortedUnique(std::move(profiler));
  if (profiler.size() >= 2) return {profiler, "ProfilerStep annotations"};
  optimizer_ends = sortedUnique(std::move(optimizer_ends));
  if (!optimizer_ends.empty()) {
    std::vector<int64_t> starts{std::min(first_event_ns, optimizer_ends.front())};
    for (int64_t end : optimizer_ends)
      if (end > starts.back()) starts.push_back(end);
    if (starts.size() >= 2) return {starts, "optimizer steps"};
  }
  return {};
}

StepWarp::StepWarp(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::min(a.size(), b.size());
  from_.assign(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
  to_.assign(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n));
}

namespace {

// t − a + b, held inside int64 (a time far outside any trace, a sentinel, stays where it is).
int64_t shifted(int64_t t, int64_t a, int64_t b) {
  const __int128 v = static_cast<__int128>(t) - a + b;
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : static_cast<int64_t>(v);
}

// Piecewise linear through (from[k], to[k]), shifted with the nearest knot outside them.
int64_t throughKnots(const std::vector<int64_t>& from, const std::vector<int64_t>& to, int64_t t) {
  if (from.empty() || t == INT64_MIN || t == INT64_MAX) return t;
  auto it = std::upper_bound(from.begin(), from.end(), t);
  if (it == from.begin()) return shifted(t, from.front(), to.front());
  const size_t k = static_cast<size_t>(it - from.begin()) - 1;
  if (k + 1 == from.size()) return shifted(t, from[k], to[k]);
  const double span_from = static_cast<double>(from[k + 1] - from[k]);
  const double span_to = static_cast<double>(to[k + 1] - to[k]);
  const double f = span_from > 0 ? static_cast<double>(t - from[k]) / span_from : 0;
  return to[k] + static_cast<int64_t>(std::llround(f * span_to));
}

}  // namespace

int64_t StepWarp::operator()(int64_t t) const { return throughKnots(from_, to_, t); }

int64_t StepWarp::inverse(int64_t t) const { return throughKnots(to_, from_, t); }

std::function<int64_t(int64_t)> stepWarp(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (std::min(a.size(), b.size()) == 0) return [](int64_t t) { return t; };
  return [warp = StepWarp(a, b)](int64_t t) { return warp(t); };
}

}  // namespace sawtooth
