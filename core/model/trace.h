#pragma once
// A whole trace in memory: events, stacks, phases, runs, devices, and counters a source reported
// as totals. Plain data; analysis lives in core/analysis.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/anomaly.h"
#include "core/model/allocator_segments.h"
#include "core/model/event_store.h"
#include "core/model/module_tree.h"
#include "core/model/stack_table.h"

namespace sawtooth {

enum class PhaseKind : uint8_t {
  Phase,       // a workload's own marker: zero_grad, forward, backward, optimizer, recompute, ...
  Annotation,  // a user's range: PyTorch external_annotations, profiler user_annotation
};

inline constexpr DeviceId kAllDevices = INT32_MIN;

struct Phase {
  std::string name;
  PhaseKind kind = PhaseKind::Phase;
  DeviceId device = kAllDevices;
  uint16_t run = kNoRun;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

struct Measurement {
  std::string name;
  double value = 0;
  std::string unit;
};

struct Run {
  std::string name;
  std::string workload;
  std::vector<std::pair<std::string, std::string>> config;
  std::vector<Measurement> measurements;

  const Measurement* measurement(std::string_view measurement_name) const;
  std::vector<double> samples(std::string_view measurement_name) const;
  std::optional<std::string> configValue(std::string_view key) const;
};

struct DeviceInfo {
  DeviceId device = 0;
  std::string name;
  std::string label;  // shown instead of "cuda:N" when set (a comparison names its sides)
  int64_t total_bytes = 0;
  // Bytes already allocated / reserved when the trace began (a snapshot starts mid-run).
  int64_t baseline_allocated = 0;
  int64_t baseline_reserved = 0;
};

// A total reported by the source itself (torch.profiler's "Total Reserved"), one value per event.
struct Counter {
  DeviceId device = 0;
  std::string name;
  std::vector<uint64_t> after_event;  // index in the event store of the event the value follows
  std::vector<int64_t> value;
};

// A GPU kernel's execution interval (CUPTI CONCURRENT_KERNEL).
struct KernelInterval {
  DeviceId device = 0;
  uint32_t stream = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;  // index into Trace::kernel_names
  uint16_t run = kNoRun;
};

struct Trace {
  std::string format;  // "pytorch-snapshot", "torch-profiler", "sawtooth"
  std::map<std::string, std::string> meta;
  EventStore events;
  StackTable stacks;
  std::vector<Phase> phases;
  std::vector<Run> runs;
  std::vector<DeviceInfo> devices;
  std::vector<Counter> counters;
  std::vector<KernelInterval> kernels;
  std::vector<std::string> kernel_names;
  // Odd but possible sequences, counted when the trace was loaded (model/trace_checks.h).
  std::vector<Anomaly> anomalies;
  // The allocator's segments when the trace ended (a PyTorch snapshot's `segments`, every device);
  // segments_known says the source reported them (an empty list then means none were held).
  std::vector<SnapshotSegment> segments;
  bool segments_known = false;
  // The recorded program's modules and their calls; events name them (EventStore::module).
  ModuleTree modules;

  // Devices that appear in events, counters or the device table, ascending.
  std::vector<DeviceId> deviceIds() const;
  const DeviceInfo* device(DeviceId id) const;
  DeviceInfo& deviceInfo(DeviceId id);  // creates the entry when missing
  const Counter* counter(DeviceId device, std::string_view name) const;
  // "cuda:0", or the device's label when one is set.
  std::string deviceName(DeviceId device) const;
};

std::string deviceLabel(DeviceId device);

}  // namespace sawtooth
