// libsawtooth_torch_tracker.so's C interface, for the Python shim (ctypes). The shim loads it
// only into a program whose torch is the very build this library was compiled against (it
// compares torch.__version__ and torch.version.git_version with the .torch file beside it first).
// ctypes.CDLL releases the GIL around each call, which stop() needs: the last delivery
// symbolizes Python frames, and that takes the GIL.

#include <atomic>
#include <string>

#include <c10/cuda/CUDACachingAllocator.h>

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

__attribute__((visibility("default"))) void sawtooth_tracker_stop(const char* reason) {
  sawtooth::tracker::stop(reason ? reason : "");
}

__attribute__((visibility("default"))) void sawtooth_tracker_pause(int paused) {
  sawtooth::tracker::setPaused(paused != 0);
}

__attribute__((visibility("default"))) void sawtooth_tracker_after_fork_child(void) {
  sawtooth::tracker::forgetAfterFork();
}

__attribute__((visibility("default"))) unsigned long long sawtooth_tracker_dropped(void) {
  return sawtooth::tracker::dropped();
}

__attribute__((visibility("default"))) const char* sawtooth_tracker_error(void) { return g_error.c_str(); }

// The shim's marks of each call of a module (modules.py): `module` its id, `pass` 1 forward, 3
// recompute, or 0: the tracker tells (a recompute while autograd runs a node on this thread).
// Called on the thread that runs the module, with the GIL held (ctypes.PyDLL).
__attribute__((visibility("default"))) void sawtooth_tracker_module_enter(unsigned module, int pass) {
  sawtooth::tracker::moduleEnter(module, static_cast<uint8_t>(pass));
}

__attribute__((visibility("default"))) void sawtooth_tracker_module_exit(unsigned module) {
  sawtooth::tracker::moduleExit(module);
}

}  // extern "C"
