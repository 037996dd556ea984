// A stand-in for the CUDA caching allocator where there is no GPU: a Python script (through
// ctypes) calls probe_alloc where a program would allocate, and the tracker receives the entry
// with the Python stack that PyTorch's history recording would have captured at that point.

#include <string>

#include <c10/core/CachingDeviceAllocator.h>
#include <torch/csrc/profiler/combined_traceback.h>

#include "capture/inject/torch_tracker.h"

using c10::CachingDeviceAllocator::TraceEntry;

extern "C" {

__attribute__((visibility("default"))) int probe_start(const char* socket_path) {
  std::string error;
  return sawtooth::tracker::start(socket_path, /*with_stacks*/ true, /*interval_ms*/ 5, error) ? 0 : 1;
}

__attribute__((visibility("default"))) void probe_alloc(unsigned long long addr, unsigned long long size) {
  auto context = torch::CapturedTraceback::gather(/*python*/ true, /*script*/ false, /*cpp*/ false);
  sawtooth::tracker::onTraceEntry(
      TraceEntry(TraceEntry::ALLOC, 0, addr, size, reinterpret_cast<void*>(0x77), {0, 0}, 0, std::move(context)));
}

__attribute__((visibility("default"))) void probe_stop() { sawtooth::tracker::stop("done"); }

__attribute__((visibility("default"))) void probe_use_torch_symbolizer() { sawtooth::tracker::useTorchSymbolizer(); }

// The shim's marks of a module's call (what libsawtooth_torch_tracker.so exports to it).
__attribute__((visibility("default"))) void probe_module_enter(unsigned module, int pass) {
  sawtooth::tracker::moduleEnter(module, static_cast<uint8_t>(pass));
}

__attribute__((visibility("default"))) void probe_module_exit(unsigned module) { sawtooth::tracker::moduleExit(module); }

__attribute__((visibility("default"))) void probe_tag_modules(int tag) { sawtooth::tracker::setTagModules(tag != 0); }

}  // extern "C"
