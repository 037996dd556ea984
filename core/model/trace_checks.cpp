#include "core/model/trace_checks.h"

#include <array>
#include <map>

#include <fmt/format.h>

#include "core/util/format_bytes.h"
#include "core/util/keyed_hash.h"

namespace sawtooth {

std::string_view name(AnomalyKind kind) {
  switch (kind) {
    case AnomalyKind::FreeWithoutAlloc: return "free_without_alloc";
    case AnomalyKind::DoubleFree: return "double_free";
    case AnomalyKind::DoubleAlloc: return "double_alloc";
    case AnomalyKind::SegmentFreeWithoutAlloc: return "segment_free_without_alloc";
    case AnomalyKind::SegmentDoubleFree: return "segment_double_free";
    case AnomalyKind::SegmentDoubleAlloc: return "segment_double_alloc";
    case AnomalyKind::TimeBackwards: return "time_backwards";
  }
  return "?";
}

std::string_view describe(AnomalyKind kind) {
  switch (kind) {
    case AnomalyKind::FreeWithoutAlloc: return "frees of blocks the trace never allocated (allocated before it began)";
    case AnomalyKind::DoubleFree: return "frees of blocks already freed";
    case AnomalyKind::DoubleAlloc: return "allocations at addresses still allocated";
    case AnomalyKind::SegmentFreeWithoutAlloc: return "segments released that the trace never reserved";
    case AnomalyKind::SegmentDoubleFree: return "segments released twice";
    case AnomalyKind::SegmentDoubleAlloc: return "segments reserved at addresses still reserved";
    case AnomalyKind::TimeBackwards: return "events earlier than the one before them (same device and source)";
  }
  return "?";
}

namespace {

std::string where(const Trace& trace, size_t i) {
  const EventStore& ev = trace.events;
  return fmt::format("event {} ({} on {})", i, name(ev.action()[i]), deviceLabel(ev.device()[i]));
}

// The state of each address the trace touches, per device, source and level (block or segment):
// a flat open-addressing table, since a 10 M-event trace probes it 10 M times.
class AddressStates {
 public:
  enum State : uint8_t { kEmpty = 0, kLive, kRequested, kFreed };

  explicit AddressStates(uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // The entry for (addr, tag), created kEmpty-as-new when absent; nullptr when the table would
  // pass max_bytes.
  uint8_t* find(uint64_t addr, DeviceId device, uint8_t kind) {
    if ((count_ + 1) * 2 > slots_.size() && !grow()) return nullptr;
    const uint64_t h = hash(addr, device, kind);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.state == kEmpty) {
        s.addr = addr;
        s.device = device;
        s.kind = kind;
        ++count_;
        return &s.state;
      }
      if (s.addr == addr && s.device == device && s.kind == kind) return &s.state;
    }
  }
  size_t count() const { return count_; }
  // After find() created an entry, the caller sets its state (never back to kEmpty).

 private:
  struct Slot {
    uint64_t addr = 0;
    DeviceId device = 0;
    uint8_t kind = 0;  // source and level (block or segment)
    uint8_t state = kEmpty;
  };
  // Addresses come from the file: keyed, or a file could choose them to share one probe sequence.
  static uint64_t hash(uint64_t addr, DeviceId device, uint8_t kind) {
    return keyedHash64(addr) ^ ((static_cast<uint64_t>(static_cast<uint32_t>(device)) << 8 | kind) * 0x9e3779b97f4a7c15ull);
  }
  bool grow() {
    const size_t size = slots_.empty() ? 1024 : slots_.size() * 2;
    if (size * sizeof(Slot) > max_bytes_) return false;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(size, Slot{});
    mask_ = size - 1;
    for (const Slot& s : old) {
      if (s.state == kEmpty) continue;
      const uint64_t h = hash(s.addr, s.device, s.kind);
      for (size_t i = h & mask_;; i = (i + 1) & mask_)
        if (slots_[i].state == kEmpty) {
          slots_[i] = s;
          break;
        }
    }
    return true;
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
  uint64_t max_bytes_;
};

}  // namespace

void settleBaselines(Trace& trace) {
  std::string warnings;
  for (DeviceInfo& d : trace.devices) {
    for (auto [value, what] : {std::pair{&d.baseline_allocated, "allocated"}, std::pair{&d.baseline_reserved, "reserved"}}) {
      if (*value >= 0) continue;
      warnings += fmt::format("{}{}: the bytes {} before the trace began come out negative ({}: what the file lists "
                              "at its end is less than what the trace itself leaves {}); counted from 0 instead",
                              warnings.empty() ? "" : "; ", deviceLabel(d.device), what,
                              *value == INT64_MIN ? std::string("-2^63") : "-" + formatBytes(-*value), what);
      *value = 0;
    }
  }
  if (warnings.empty()) return;
  std::string& all = trace.meta["warnings"];
  all += (all.empty() ? "" : "; ") + warnings;
}

Status checkTraceValues(const Trace& trace, int64_t max_size, std::string_view size_hint) {
  for (const DeviceInfo& d : trace.devices)
    if (d.device < kCpuDevice) return Error{fmt::format("device {} in the device table is not a device", d.device)};
  const EventStore& ev = trace.events;
  const auto& sizes = ev.sizes();
  const auto& devices = ev.device();
  const auto& actions = ev.action();
  // Running totals per device, from the baseline: they must stay inside 64 bits.
  std::map<DeviceId, std::pair<int64_t, int64_t>> totals;
  for (const DeviceInfo& d : trace.devices) totals[d.device] = {d.baseline_allocated, d.baseline_reserved};
  DeviceId last_device = INT32_MIN;
  std::pair<int64_t, int64_t>* total = nullptr;
  for (size_t i = 0; i < ev.size(); ++i) {
    if (sizes[i] < 0) return Error{fmt::format("{}: size {} is negative", where(trace, i), sizes[i])};
    if (sizes[i] > max_size)
      return Error{fmt::format("{}: size {} is more than any device holds (the size limit, {} bytes{}{})", where(trace, i),
                               sizes[i], max_size, size_hint.empty() ? "" : "; ", size_hint)};
    if (devices[i] != last_device) {
      if (devices[i] < kCpuDevice) return Error{fmt::format("{}: device {} is not a device", where(trace, i), devices[i])};
      last_device = devices[i];
      total = &totals[last_device];
    }
    const int a = allocatedSign(actions[i]), r = reservedSign(actions[i]);
    if (a != 0 && __builtin_add_overflow(total->first, a * sizes[i], &total->first))
      return Error{fmt::format("{}: the allocated bytes on {} pass 2^63", where(trace, i), deviceLabel(devices[i]))};
    if (r != 0 && __builtin_add_overflow(total->second, r * sizes[i], &total->second))
      return Error{fmt::format("{}: the reserved bytes on {} pass 2^63", where(trace, i), deviceLabel(devices[i]))};
  }
  return Ok{};
}

Status countAnomalies(Trace& trace, uint64_t max_bytes) {
  std::array<Anomaly, kAnomalyKindCount> found;
  for (int k = 0; k < kAnomalyKindCount; ++k) found[static_cast<size_t>(k)].kind = static_cast<AnomalyKind>(k);
  auto note = [&](AnomalyKind kind, size_t i) {
    Anomaly& a = found[static_cast<size_t>(kind)];
    if (a.count++ < kAnomalyExamples) a.first_events.push_back(i);
  };
  const EventStore& ev = trace.events;
  AddressStates states(max_bytes);
  // The last time per device and source.
  std::map<uint64_t, int64_t> last_time;
  uint64_t last_key = UINT64_MAX;
  int64_t* last_t = nullptr;
  for (size_t i = 0; i < ev.size(); ++i) {
    const Action action = ev.action()[i];
    const Source source = ev.source()[i];
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(ev.device()[i])) << 8) | static_cast<uint8_t>(source);
    if (key != last_key) {
      auto [it, inserted] = last_time.try_emplace(key, ev.tNs()[i]);
      last_key = key;
      last_t = &it->second;
    }
    if (ev.tNs()[i] < *last_t) note(AnomalyKind::TimeBackwards, i);
    *last_t = ev.tNs()[i];

    const bool block = action == Action::Alloc || action == Action::FreeRequested || action == Action::FreeCompleted;
    const bool segment = action == Action::SegmentAlloc || action == Action::SegmentFree;
    // Address 0 is no address: memory timelines and JAX profiles record none, and no allocator
    // hands out the null pointer.
    if ((!block && !segment) || ev.addr()[i] == 0) continue;
    uint8_t* state = states.find(ev.addr()[i], ev.device()[i], static_cast<uint8_t>(static_cast<uint8_t>(source) * 2 + segment));
    if (!state)
      return Error{fmt::format("counting the trace's anomalies needs more memory than the limit allows ({} "
                               "distinct addresses; the memory limit, raise it with --max-memory SIZE)",
                               states.count())};
    using S = AddressStates;
    switch (action) {
      case Action::Alloc:
        if (*state == S::kLive || *state == S::kRequested) note(AnomalyKind::DoubleAlloc, i);
        *state = S::kLive;
        break;
      case Action::FreeRequested:
        if (*state == S::kEmpty) note(AnomalyKind::FreeWithoutAlloc, i);
        else if (*state == S::kFreed) note(AnomalyKind::DoubleFree, i);
        *state = S::kRequested;
        break;
      case Action::FreeCompleted:
        if (*state == S::kEmpty) note(AnomalyKind::FreeWithoutAlloc, i);
        else if (*state == S::kFreed) note(AnomalyKind::DoubleFree, i);
        *state = S::kFreed;
        break;
      case Action::SegmentAlloc:
        if (*state == S::kLive) note(AnomalyKind::SegmentDoubleAlloc, i);
        *state = S::kLive;
        break;
      case Action::SegmentFree:
        if (*state == S::kEmpty) note(AnomalyKind::SegmentFreeWithoutAlloc, i);
        else if (*state == S::kFreed) note(AnomalyKind::SegmentDoubleFree, i);
        *state = S::kFreed;
        break;
      default: break;
    }
  }
  trace.anomalies.clear();
  for (Anomaly& a : found)
    if (a.count) trace.anomalies.push_back(std::move(a));
  return Ok{};
}

}  // namespace sawtooth
