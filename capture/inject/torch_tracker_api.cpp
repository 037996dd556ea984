// libsawtooth_torch_tracker.so's C interface, for the Python shim (ctypes). The shim loads it
// only into a program whose torch is the very build this library was compiled against (it
// compares torch.__version__ and torch.version.git_version with the .torch file beside it first).
// ctypes.CDLL releases the GIL around each call, which stop() needs: the last delivery
// symbolizes Python frames, and that takes the GIL.

#include <atomic>
#include <string>

#include <c10/cuda/CUDACachingAllocator.h>

#include "capture/inject/cpu_reporter.h"
#include "capture/inject/module_builtins.h"
#include "capture/inject/torch_tracker.h"

namespace {

std::atomic<bool> g_attached{false};
std::string g_error;

// There is no detach: attached once, the tracker ignores (and counts) entries while stopped.
int attach() {
  auto* allocator = c10::cuda::CUDACachingAllocator::get();
  if (!allocator || !allocator->initialized()) {
    g_error = "the CUDA caching allocator is not initialised";
    return 1;
  }
  if (!g_attached.exchange(true))
    c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker(sawtooth::tracker::onTraceEntry);
  return 0;
}

}  // namespace

extern "C" {

// 0 when the tracker is attached to the CUDA caching allocator, stopped (it counts what the
// allocator hands it in sawtooth_tracker_idle_calls and sends nothing).
__attribute__((visibility("default"))) int sawtooth_tracker_attach(void) {
  try {
    return attach();
  } catch (const std::exception& e) {
    g_error = e.what();
    return 3;
  }
}

__attribute__((visibility("default"))) unsigned long long sawtooth_tracker_idle_calls(void) {
  return sawtooth::tracker::idleCalls();
}

// 0 when the tracker is attached to the CUDA caching allocator and sending to the recorder.
__attribute__((visibility("default"))) int sawtooth_tracker_start(const char* socket_path, int with_stacks,
                                                                  int interval_ms) {
  try {
    if (const int rc = attach(); rc != 0) return rc;
    if (!sawtooth::tracker::start(socket_path, with_stacks != 0, interval_ms, g_error)) return 2;
    return 0;
  } catch (const std::exception& e) {
    g_error = e.what();
    return 3;
  }
}

// 0 when the tracker is sending to the recorder, without the CUDA allocator (a process that has
// not used CUDA: its CPU allocations come through sawtooth_tracker_cpu_attach).
__attribute__((visibility("default"))) int sawtooth_tracker_connect(const char* socket_path, int with_stacks,
                                                                    int interval_ms) {
  try {
    return sawtooth::tracker::start(socket_path, with_stacks != 0, interval_ms, g_error) ? 0 : 2;
  } catch (const std::exception& e) {
    g_error = e.what();
    return 3;
  }
}

// 0 when c10's CPU allocator reports to the tracker on this thread (and the threads it starts):
// cpu_reporter.h. Called on the program's thread.
__attribute__((visibility("default"))) int sawtooth_tracker_cpu_attach(void) {
  try {
    return sawtooth::tracker::attachCpu(g_error) ? 0 : 1;
  } catch (const std::exception& e) {
    g_error = e.what();
    return 3;
  }
}

__attribute__((visibility("default"))) void sawtooth_tracker_cpu_detach(void) {
  try {
    sawtooth::tracker::detachCpu();
  } catch (const std::exception&) {
  }
}

__attribute__((visibility("default"))) void sawtooth_tracker_stop(const char* reason) {
  sawtooth::tracker::stop(reason ? reason : "");
}

__attribute__((visibility("default"))) void sawtooth_tracker_pause(int paused) {
  sawtooth::tracker::setPaused(paused != 0);
}

// 1: the CUDA allocator's entries are counted as idle and not sent until 0 (cuda_native.py's probe).
__attribute__((visibility("default"))) void sawtooth_tracker_probe(int probing) {
  sawtooth::tracker::setProbing(probing != 0);
}

// 0: allocations go without their module until 1 (an overhead measurement's `module-tags` part).
__attribute__((visibility("default"))) void sawtooth_tracker_tag_modules(int tag) {
  sawtooth::tracker::setTagModules(tag != 0);
}

__attribute__((visibility("default"))) void sawtooth_tracker_use_torch_symbolizer(void) {
  sawtooth::tracker::useTorchSymbolizer();
}

__attribute__((visibility("default"))) void sawtooth_tracker_after_fork_child(void) {
  sawtooth::tracker::forgetAfterFork();
}

__attribute__((visibility("default"))) unsigned long long sawtooth_tracker_dropped(void) {
  return sawtooth::tracker::dropped();
}

__attribute__((visibility("default"))) const char* sawtooth_tracker_error(void) { return g_error.c_str(); }

// The shim's marks of each module call, as Python builtins appended to `list` (module_builtins.h):
// 0 when they were, 1 when CPython's API is not found here. Called with the GIL held (ctypes.PyDLL).
__attribute__((visibility("default"))) int sawtooth_tracker_module_builtins(void* list) {
  return sawtooth::tracker::appendModuleBuiltins(list) ? 0 : 1;
}

// The same marks as C calls (bench/capture/shim/module_hooks_bench.py's earlier designs): `module`
// its id, `pass` 1 forward, 3 recompute, or 0: the tracker tells (a recompute while autograd runs a
// node on this thread). Called on the thread that runs the module, with the GIL held.
__attribute__((visibility("default"))) void sawtooth_tracker_module_enter(unsigned module, int pass) {
  sawtooth::tracker::moduleEnter(module, static_cast<uint8_t>(pass));
}

__attribute__((visibility("default"))) void sawtooth_tracker_module_exit(unsigned module) {
  sawtooth::tracker::moduleExit(module);
}

}  // extern "C"
