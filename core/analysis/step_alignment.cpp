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

std::function<int64_t(int64_t)> stepWarp(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t n = std::min(a.size(), b.size());
  if (n == 0) return [](int64_t t) { return t; };
  std::vector<int64_t> from(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<int64_t> to(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n));
  return [from = std::move(from), to = std::move(to)](int64_t t) -> int64_t {
    auto it = std::upper_bound(from.begin(), from.end(), t);
    if (it == from.begin()) return t - from.front() + to.front();
    const size_t k = static_cast<size_t>(it - from.begin()) - 1;
    if (k + 1 == from.size()) return t - from[k] + to[k];
    const double span_b = static_cast<double>(from[k + 1] - from[k]);
    const double span_a = static_cast<double>(to[k + 1] - to[k]);
    const double f = span_b > 0 ? static_cast<double>(t - from[k]) / span_b : 0;
    return to[k] + static_cast<int64_t>(std::llround(f * span_a));
  };
}

}  // namespace sawtooth
