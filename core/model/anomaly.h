#pragma once
// Odd but possible sequences in a trace: kept as they are, counted by kind, and shown (info,
// info --json, the app's warnings line) with the first events where they occur. PyTorch itself
// writes some of them: a snapshot's ring buffer starts mid-run, so its first frees may have no
// alloc, and events of several streams can come out of time order.

#include <cstdint>
#include <string_view>
#include <vector>

namespace sawtooth {

enum class AnomalyKind : uint8_t {
  FreeWithoutAlloc,         // a free of an address the trace never allocated
  DoubleFree,               // a free of an address already freed
  DoubleAlloc,              // an alloc at an address still allocated
  SegmentFreeWithoutAlloc,  // a segment freed that the trace never reserved
  SegmentDoubleFree,
  SegmentDoubleAlloc,
  TimeBackwards,            // an event earlier than the one before it on its device and source
};
inline constexpr int kAnomalyKindCount = 7;
inline constexpr size_t kAnomalyExamples = 5;  // first event indices kept per kind

std::string_view name(AnomalyKind kind);         // "free_without_alloc"
std::string_view describe(AnomalyKind kind);     // "frees of addresses never allocated in the trace"

struct Anomaly {
  AnomalyKind kind = AnomalyKind::FreeWithoutAlloc;
  uint64_t count = 0;
  std::vector<uint64_t> first_events;  // indices in the event store, ascending, at most kAnomalyExamples
};

}  // namespace sawtooth
