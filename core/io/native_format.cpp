#include "core/io/native_format.h"

#include "core/analysis/allocator_history.h"
#include "core/analysis/step_alignment.h"
#include "core/model/meta_keys.h"

namespace sawtooth {

Status writeNative(const Trace& trace, const std::string& path, Progress* progress) {
  auto writer = NativeWriter::create(path);
  if (!writer) return writer.error();
  NativeWriter& w = **writer;
  if (Status st = w.beginBatch(); !st) return st;
  if (Status st = w.setMeta(std::string(meta::kSourceFormat), trace.format); !st) return st;
  for (const auto& [k, v] : trace.meta)
    if (Status st = w.setMeta(k, v); !st) return st;
  for (const auto& d : trace.devices)
    if (Status st = w.writeDevice(d); !st) return st;
  for (size_t i = 0; i < trace.runs.size(); ++i)
    if (Status st = w.writeRun(static_cast<uint16_t>(i), trace.runs[i]); !st) return st;
  for (size_t i = 0; i < trace.phases.size(); ++i)
    if (Status st = w.writePhase(static_cast<uint32_t>(i), trace.phases[i]); !st) return st;
  if (Status st = w.writeStacks(trace.stacks, 0, 0); !st) return st;
  for (const auto& c : trace.counters)
    if (Status st = w.writeCounter(c); !st) return st;
  for (size_t i = 0; i < trace.kernel_names.size(); ++i)
    if (Status st = w.writeKernelName(static_cast<uint32_t>(i), trace.kernel_names[i]); !st) return st;
  if (Status st = w.appendKernels(trace.kernels); !st) return st;
  for (size_t i = 0; i < trace.modules.modules.size(); ++i)
    if (Status st = w.writeModule(static_cast<uint32_t>(i), trace.modules.modules[i]); !st) return st;
  if (Status st = w.appendModuleCalls(trace.modules.calls); !st) return st;
  if (trace.segments_known)
    if (Status st = w.writeSegments(trace.segments); !st) return st;
  // The summaries' steps, and the allocator's state when a snapshot's trace began (reconstructed
  // from its segments at the end), from which the stored states replay.
  w.setStepStarts(findStepStarts(trace).t_ns);
  if (trace.segments_known) {
    ReplayOptions replay;
    replay.series = false;
    replay.checkpoints = false;
    for (DeviceId device : trace.deviceIds()) {
      if (device < INT16_MIN || device > INT16_MAX) continue;
      auto history = AllocatorHistory::build(trace, static_cast<int16_t>(device), replay);
      if (history) w.setAllocatorStart(device, history->stateAfter(-1), history->settings());
    }
  }
  if (Status st = w.appendEvents(trace.events, 0, trace.events.size(), progress); !st) return st;
  if (Status st = w.commitBatch(); !st) return st;
  return w.finish();
}

}  // namespace sawtooth
