#pragma once
// The allocator tracker inside libsawtooth_torch_tracker.so (torch_tracker_api.cpp is its C face for
// the Python shim). It receives the CUDA caching allocator's trace entries — every alloc, free,
// segment and OOM, with the Python stack PyTorch's history recording captured — and sends them to
// the recorder from its own thread, every 50 ms or, with stacks, as delivery_pace.h paces it. The allocator calls
// onTraceEntry under its lock: it stamps the clock and pushes into a preallocated queue, nothing else.
// CPU allocations come the same way from c10's memory reporting (cpu_reporter.h, onCpuMemory).

#include <cstdint>
#include <string>

#include <c10/core/CachingDeviceAllocator.h>

namespace sawtooth::tracker {

// Connects to the recorder and starts the sending thread. False with `error` set when it cannot.
bool start(const char* socket_path, bool with_stacks, int interval_ms, std::string& error);
// Sends what is queued (symbolizing Python frames takes the GIL: the caller must not hold it),
// says goodbye and closes. Idempotent.
void stop(const std::string& reason);
// Ignores the allocator's entries until resumed (for overhead measurements: the trace has a gap).
void setPaused(bool paused);
// torch's symbolizer may name Python frames from now on: the shim has imported what it imports on
// first use, on the program's thread (python_frames.h). Until then the tracker names them itself.
void useTorchSymbolizer();
// While on, the CUDA allocator's entries are counted as idle and not sent, whether the tracker runs
// or not: the shim's probe of whether this torch calls trackers with its history off.
void setProbing(bool probing);
// While off, allocations are sent without the module running where they were made (the marks
// still go): what tagging each allocation costs, apart from the marks (an overhead measurement's
// `module-tags` part: the trace's modules have a gap).
void setTagModules(bool tag);
// In a forked child: this process sends nothing.
void forgetAfterFork();
void onTraceEntry(const c10::CachingDeviceAllocator::TraceEntry& entry);
// A CPU allocation (size > 0) or free (size < 0) of c10's CPU allocator (cpu_reporter.h), on the
// thread that made it: queued as CUDA's entries are, with its module and, with stacks, its
// allocation's Python stack.
void onCpuMemory(void* ptr, int64_t size);
// The shim's marks of a module's call on this thread (modules.py): sent with the allocations,
// which then carry the module running where they were made (module_context.h).
void moduleEnter(uint32_t module, uint8_t pass);
void moduleExit(uint32_t module);
// Entries the allocator handed over while the tracker was stopped (ignored, only counted): the
// shim's probe of whether this torch calls trackers with its history off.
uint64_t idleCalls();
uint64_t seen();
uint64_t dropped();

}  // namespace sawtooth::tracker
