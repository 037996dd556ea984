// libsawtooth_cupti_inject.so: loaded into the recorded program by the CUDA driver itself
// (CUDA_INJECTION64_PATH), which calls InitializeInjection when the program initialises CUDA.
// It links no LibTorch and loads CUPTI at run time (cupti_library.h) — so it serves any program:
// any torch version, plain C++ and LibTorch binaries. It records the driver's device allocations (MEMORY2), memory pools,
// kernel intervals and NVTX ranges through CUPTI's activity API, samples the device memory in
// use of every device the program has a context on, and sends it all to sawtooth-record.
//
// When the program runs torch.profiler with CUDA activities, Kineto needs CUPTI's activity API
// (one client per process): the Python shim calls sawtooth_cupti_yield() first, or sets
// SAWTOOTH_CUPTI_YIELD before CUDA starts, and sawtooth_cupti_resume() once Kineto is done.
// Kineto also takes the activity API for a CPU-only session (the shim's own, for CPU
// allocations): the shim calls sawtooth_cupti_reclaim() once that one has stopped for good.
// sawtooth_cupti_pause(what) pauses, in place, our activities (bit 1) and the device sampler
// (bit 2), and 0 runs both again: for measuring what they cost inside one process (the shim's
// pause_recording()).
// SAWTOOTH_CUPTI_DEBUG=1 prints what CUPTI answered and the buffers it handed back on stderr.
// SAWTOOTH_CUPTI_KINDS (a measurement knob, e.g. "memory2"): the activity kinds to enable, of
// memory2, pool, kernel and marker; all of them (kernels as --kernels says) when unset.

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cuda.h>
#include <cupti.h>

#include "capture/cupti/activity_decoder.h"
#include "capture/inject/cupti_library.h"
#include "capture/inject/injection_options.h"
#include "capture/inject/wire_connection.h"
#include "core/model/action.h"
#include "core/recording/wire.h"

namespace {

namespace wire = sawtooth::wire;
using sawtooth::inject::InjectionOptions;
using sawtooth::inject::parseInjectionOptions;
using sawtooth::Action;

constexpr size_t kBufferSize = 2 << 20;
constexpr size_t kAlignment = 8;
constexpr int kMaxDevices = 64;
constexpr uint8_t kDriverStream = 0, kSampleStream = 1, kMarkerStream = 2;
constexpr auto kFlushPeriod = std::chrono::milliseconds(250);

// The driver functions the sampler needs, from the libcuda the program already loaded.
struct Driver {
  CUresult (*deviceGetCount)(int*) = nullptr;
  CUresult (*deviceGet)(CUdevice*, int) = nullptr;
  CUresult (*primaryCtxGetState)(CUdevice, unsigned int*, int*) = nullptr;
  CUresult (*primaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*ctxPushCurrent)(CUcontext) = nullptr;
  CUresult (*ctxPopCurrent)(CUcontext*) = nullptr;
  CUresult (*memGetInfo)(size_t*, size_t*) = nullptr;
  CUresult (*driverGetVersion)(int*) = nullptr;
  CUresult (*deviceGetName)(char*, int, CUdevice) = nullptr;

  bool load() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return false;
    const auto sym = [lib](auto& fn, const char* name) { fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name)); };
    sym(deviceGetCount, "cuDeviceGetCount");
    sym(deviceGet, "cuDeviceGet");
    sym(primaryCtxGetState, "cuDevicePrimaryCtxGetState");
    sym(primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(ctxPushCurrent, "cuCtxPushCurrent_v2");
    sym(ctxPopCurrent, "cuCtxPopCurrent_v2");
    sym(memGetInfo, "cuMemGetInfo_v2");
    sym(driverGetVersion, "cuDriverGetVersion");
    sym(deviceGetName, "cuDeviceGetName");
    return deviceGetCount && deviceGet && primaryCtxGetState && primaryCtxRetain && ctxPushCurrent && ctxPopCurrent &&
           memGetInfo;
  }
};

struct State {
  sawtooth::inject::CuptiLibrary cupti;
  wire::Connection connection;
  std::mutex names_mutex;  // CUPTI may complete buffers on several threads
  wire::NameTable names;
  std::atomic<bool> collecting{false}, yielded{false}, forked{false}, paused{false}, sampler_paused{false};
  std::atomic<uint64_t> memory{0}, pools{0}, kernels{0}, markers{0}, dropped{0}, samples{0};
  std::thread sampler;
  std::mutex wake_mutex;
  std::condition_variable wake;
  bool stopping = false;
  int sample_interval_ms = 50;
  bool record_kernels = true;
  Driver driver;
  CUcontext contexts[kMaxDevices] = {};
};

State* g = nullptr;
std::once_flag g_init, g_finish;
const bool g_debug = [] {
  const char* v = std::getenv("SAWTOOTH_CUPTI_DEBUG");
  return v && *v == '1';
}();
std::atomic<int> g_debug_buffers{0};

// printf-checked, so that hardened builds (-Werror=format-security) accept a format alone.
[[gnu::format(printf, 1, 2)]] void debug(const char* format, ...) {
  if (!g_debug) return;
  std::fprintf(stderr, "sawtooth-cupti[%d]: ", static_cast<int>(getpid()));
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
}

uint64_t CUPTIAPI monotonicClock() { return static_cast<uint64_t>(wire::monotonicNs()); }

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferSize));
  *size = *buffer ? kBufferSize : 0;
  *max_records = 0;
  if (g_debug_buffers.load(std::memory_order_relaxed) < 3) debug("buffer requested");
}

std::string timePayload(int64_t t) { return std::string(reinterpret_cast<const char*>(&t), sizeof t); }

// What one buffer held, as the wire's records (names interned under the state's lock).
struct BufferRecords {
  std::string driver, markers, kernels;

  void onMemory(const sawtooth::cupti::DriverMemory& m) {
    wire::Record r{m.t_ns, m.addr, m.bytes, m.stream, wire::kNoStack, m.device,
                   static_cast<uint8_t>(m.alloc ? Action::Alloc : Action::FreeCompleted),
                   static_cast<uint8_t>(wire::RecordKind::Driver)};
    wire::appendPod(driver, r);
  }
  void onKernel(const sawtooth::cupti::KernelSpan& k) {
    uint32_t name = 0;
    {
      std::lock_guard<std::mutex> lock(g->names_mutex);
      name = g->names.id(k.name);
    }
    wire::Kernel out{k.begin_ns, k.end_ns, name, k.stream, k.device, 0, 0};
    wire::appendPod(kernels, out);
  }
  void onMarker(const sawtooth::cupti::MarkerEdge& m) {
    uint32_t name = 0;
    if (m.start) {
      std::lock_guard<std::mutex> lock(g->names_mutex);
      name = g->names.id(m.name);
    }
    wire::Record r{m.t_ns, name, 0, m.id, wire::kNoStack, 0, 0,
                   static_cast<uint8_t>(m.start ? wire::RecordKind::AnnotationBegin : wire::RecordKind::AnnotationEnd)};
    wire::appendPod(markers, r);
  }
};

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  BufferRecords out_records;
  sawtooth::cupti::ActivityCounts counts;
  if (g) {
    sawtooth::cupti::decodeActivityBuffer(g->cupti.activityGetNextRecord, buffer, valid, out_records, counts);
    g->memory.fetch_add(counts.memory, std::memory_order_relaxed);
    g->pools.fetch_add(counts.pools, std::memory_order_relaxed);
    g->kernels.fetch_add(counts.kernels, std::memory_order_relaxed);
    g->markers.fetch_add(counts.markers, std::memory_order_relaxed);
  }
  const std::string& driver_records = out_records.driver;
  const std::string& kernel_records = out_records.kernels;
  const std::string& marker_records = out_records.markers;
  if (g_debug && g_debug_buffers.fetch_add(1) < 3)
    debug("buffer completed: %zu bytes; totals: %llu kernels, %llu memory", valid,
          static_cast<unsigned long long>(g ? g->kernels.load() : 0), static_cast<unsigned long long>(g ? g->memory.load() : 0));
  size_t dropped = 0;
  if (g && g->cupti.activityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) g->dropped.fetch_add(dropped);
  std::free(buffer);
  if (!g || g->forked.load()) return;
  // Names go before the records that use them, and no other buffer's records overtake them.
  std::lock_guard<std::mutex> lock(g->names_mutex);
  std::string out;
  g->names.appendNew(out, kDriverStream);
  if (!driver_records.empty()) wire::appendFrame(out, wire::FrameType::Records, kDriverStream, driver_records);
  if (!kernel_records.empty()) wire::appendFrame(out, wire::FrameType::Kernels, kDriverStream, kernel_records);
  if (!marker_records.empty()) {
    wire::appendFrame(out, wire::FrameType::Records, kMarkerStream, marker_records);
    wire::appendFrame(out, wire::FrameType::Idle, kMarkerStream, timePayload(wire::monotonicNs()));
  }
  if (!out.empty()) g->connection.send(out);
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL,
                                     CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MARKER};
const char* const kKindNames[] = {"memory2", "pool", "kernel", "marker"};

// Whether SAWTOOTH_CUPTI_KINDS (unset: all) names kKinds[i].
bool kindWanted(size_t i) {
  const char* wanted = std::getenv("SAWTOOTH_CUPTI_KINDS");
  if (!wanted) return true;
  const std::string list = std::string(",") + wanted + ",";
  return list.find(std::string(",") + kKindNames[i] + ",") != std::string::npos;
}

std::string enableActivities() {
  std::string problems;
  const CUptiResult registered = g->cupti.activityRegisterCallbacks(bufferRequested, bufferCompleted);
  debug("register activity callbacks: %d", static_cast<int>(registered));
  if (registered != CUPTI_SUCCESS) return "CUPTI refused our activity buffers";
  for (size_t i = 0; i < std::size(kKinds); ++i) {
    const CUpti_ActivityKind kind = kKinds[i];
    if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && !g->record_kernels) continue;  // --kernels off
    if (!kindWanted(i)) continue;
    const CUptiResult rc = g->cupti.activityEnable(kind);
    debug("enable kind %d: %d", static_cast<int>(kind), static_cast<int>(rc));
    if (rc != CUPTI_SUCCESS && kind != CUPTI_ACTIVITY_KIND_MARKER)
      problems += std::string(problems.empty() ? "" : "; ") + "activity kind " + std::to_string(static_cast<int>(kind)) +
                  ": " + g->cupti.describe(rc);
  }
  g->collecting.store(true);
  return problems;
}

// Delivers what CUPTI holds, then turns our activities off (the buffer callbacks stay ours).
void disableActivities() {
  if (g->collecting.exchange(false)) {
    g->cupti.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) g->cupti.activityDisable(kind);
  }
}

void notice(const std::string& level, const std::string& message) {
  std::string out;
  wire::appendFrame(out, wire::FrameType::Notice, 0,
                    "{\"level\": " + wire::jsonQuote(level) + ", \"message\": " + wire::jsonQuote(message) + "}");
  g->connection.send(out);
}

// Device memory in use on every device the program has a context on (total − free, as
// cudaMemGetInfo reports it: the CUDA context and other processes included).
void sampleDevices() {
  Driver& d = g->driver;
  int count = 0;
  if (d.deviceGetCount(&count) != CUDA_SUCCESS) return;
  std::string records;
  for (int i = 0; i < count && i < kMaxDevices; ++i) {
    CUdevice dev = 0;
    if (d.deviceGet(&dev, i) != CUDA_SUCCESS) continue;
    if (!g->contexts[i]) {
      unsigned int flags = 0;
      int active = 0;
      // Only a context the program made: retaining an inactive one would create a context.
      if (d.primaryCtxGetState(dev, &flags, &active) != CUDA_SUCCESS || !active) continue;
      if (d.primaryCtxRetain(&g->contexts[i], dev) != CUDA_SUCCESS) continue;
    }
    if (d.ctxPushCurrent(g->contexts[i]) != CUDA_SUCCESS) continue;
    size_t free_bytes = 0, total = 0;
    const bool ok = d.memGetInfo(&free_bytes, &total) == CUDA_SUCCESS;
    CUcontext popped = nullptr;
    d.ctxPopCurrent(&popped);
    if (!ok) continue;
    wire::Record r{wire::monotonicNs(), total, static_cast<int64_t>(total - free_bytes), 0, wire::kNoStack,
                   static_cast<int16_t>(i), static_cast<uint8_t>(Action::Sample), static_cast<uint8_t>(wire::RecordKind::Sample)};
    wire::appendPod(records, r);
    g->samples.fetch_add(1, std::memory_order_relaxed);
  }
  if (records.empty()) return;
  std::string out;
  wire::appendFrame(out, wire::FrameType::Records, kSampleStream, records);
  g->connection.send(out);
}

void describeDevices() {
  Driver& d = g->driver;
  std::string meta = "{";
  int version = 0;
  if (d.driverGetVersion && d.driverGetVersion(&version) == CUDA_SUCCESS)
    meta += "\"cuda_driver_version\": " + wire::jsonQuote(std::to_string(version));
  uint32_t cupti = 0;
  if (g->cupti.getVersion(&cupti) == CUPTI_SUCCESS)
    meta += std::string(meta.size() > 1 ? ", " : "") + "\"cupti_version\": " + wire::jsonQuote(std::to_string(cupti));
  int count = 0;
  if (d.deviceGetName && d.deviceGetCount(&count) == CUDA_SUCCESS)
    for (int i = 0; i < count && i < kMaxDevices; ++i) {
      CUdevice dev = 0;
      char name[256] = {};
      if (d.deviceGet(&dev, i) != CUDA_SUCCESS || d.deviceGetName(name, sizeof name - 1, dev) != CUDA_SUCCESS) continue;
      meta += std::string(meta.size() > 1 ? ", " : "") + "\"device." + std::to_string(i) + ".name\": " + wire::jsonQuote(name);
    }
  meta += "}";
  std::string out;
  wire::appendFrame(out, wire::FrameType::Meta, 0, meta);
  g->connection.send(out);
}

void samplerLoop() {
  pthread_setname_np(pthread_self(), "sawtooth-sample");  // ours, told apart in the program's thread list
  const bool have_driver = g->driver.load();
  if (have_driver) describeDevices();
  else notice("warning", "the CUDA driver's functions were not found: no device memory samples");
  auto next_flush = std::chrono::steady_clock::now() + kFlushPeriod;
  std::unique_lock<std::mutex> lock(g->wake_mutex);
  while (!g->stopping) {
    lock.unlock();
    if (have_driver && !g->sampler_paused.load(std::memory_order_relaxed)) sampleDevices();
    if (std::chrono::steady_clock::now() >= next_flush) {
      // Partly filled buffers too, so that the recorder sees the driver's allocations live.
      if (g->collecting.load()) g->cupti.activityFlushAll(0);
      next_flush = std::chrono::steady_clock::now() + kFlushPeriod;
    }
    lock.lock();
    g->wake.wait_for(lock, std::chrono::milliseconds(g->sample_interval_ms), [] { return g->stopping; });
  }
}

void finishWith(const std::string& reason) {
  std::call_once(g_finish, [&reason] {
    if (!g || g->forked.load()) return;
    {
      std::lock_guard<std::mutex> lock(g->wake_mutex);
      g->stopping = true;
    }
    g->wake.notify_all();
    if (g->sampler.joinable()) g->sampler.join();
    if (g->collecting.load()) g->cupti.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    debug("exit: %llu kernels, %llu memory records", static_cast<unsigned long long>(g->kernels.load()),
          static_cast<unsigned long long>(g->memory.load()));
    std::string out;
    wire::appendFrame(out, wire::FrameType::Bye, 0,
                      "{\"reason\": " + wire::jsonQuote(reason) + ", \"dropped\": " + std::to_string(g->dropped.load()) +
                          ", \"memory_records\": " + std::to_string(g->memory.load()) +
                          ", \"kernel_records\": " + std::to_string(g->kernels.load()) + "}");
    g->connection.send(out);
    g->connection.close();
  });
}

void finish() { finishWith("exit"); }

void afterForkInChild() {
  if (!g) return;
  g->forked.store(true);
  g->collecting.store(false);
  g->connection.forget();
}

void initialize() {
  const char* socket_path = std::getenv(wire::kSocketEnv);
  if (!socket_path || !*socket_path) return;  // loaded without a recorder: stay out of the way
  g = new State();  // lives for the process: CUPTI may call back until exit
  const InjectionOptions options = parseInjectionOptions(std::getenv("SAWTOOTH_OPTIONS"));
  g->sample_interval_ms = options.sample_interval_ms;
  g->record_kernels = options.kernels;
  const std::string missing = g->cupti.load();
  uint32_t version = 0;
  if (missing.empty()) g->cupti.getVersion(&version);
  const std::string hello = "{\"role\": \"cupti\", \"pid\": " + std::to_string(getpid()) +
                            ", \"cupti_version\": " + std::to_string(version) +
                            ", \"cupti_path\": " + wire::jsonQuote(g->cupti.path) + "}";
  if (!g->connection.open(socket_path, hello)) {
    g = nullptr;  // no recorder to send to: stay out of the way (the entry points below do nothing)
    return;
  }
  if (!missing.empty()) {
    // The program runs as it would unrecorded; only what CUPTI would have told is missing.
    notice("warning", "driver allocations, kernels, NVTX ranges and device samples are not recorded: " + missing);
    std::string out;
    wire::appendFrame(out, wire::FrameType::Bye, 0, "{\"reason\": \"no CUPTI\"}");
    g->connection.send(out);
    g->connection.close();
    g = nullptr;  // every entry point below then does nothing (the state is left, as CUPTI's callbacks never came)
    return;
  }
  debug("injected, CUPTI %u from %s", version, g->cupti.path.c_str());
  if (g->cupti.activityRegisterTimestampCallback(monotonicClock) != CUPTI_SUCCESS)
    notice("warning", "CUPTI did not take our clock: driver allocations and kernels may be misplaced in time");
  // NVTX ranges reach CUPTI only through NVTX's own injection hook, which it reads when the
  // program first uses NVTX.
  if (!std::getenv("NVTX_INJECTION64_PATH") && !g->cupti.path.empty())
    setenv("NVTX_INJECTION64_PATH", g->cupti.path.c_str(), 0);
  const char* yield = std::getenv("SAWTOOTH_CUPTI_YIELD");
  if (yield && *yield == '1') {
    g->yielded.store(true);
    notice("warning", "torch.profiler has CUPTI: driver allocations and kernels are recorded once it stops");
  } else if (std::string problems = enableActivities(); !problems.empty()) {
    notice("warning", "CUPTI: " + problems);
  }
  pthread_atfork(nullptr, nullptr, afterForkInChild);
  std::atexit(finish);
  g->sampler = std::thread(samplerLoop);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int InitializeInjection(void) {
  std::call_once(g_init, initialize);
  return 1;
}

// Kineto is about to take CUPTI's activity API: deliver what we have and let go of it.
__attribute__((visibility("default"))) void sawtooth_cupti_yield(void) {
  if (!g || g->yielded.exchange(true)) return;
  debug("yield to torch.profiler");
  disableActivities();
}

// The shim's own CPU-only profiler session (Kineto) has stopped for good: Kineto may have put its
// buffer callbacks in place of ours, or finalized CUPTI; register and enable again.
__attribute__((visibility("default"))) void sawtooth_cupti_reclaim(void) {
  if (!g || g->yielded.load() || g->forked.load() || g->paused.load()) return;
  debug("reclaim after the shim's CPU profiler");
  // Buffers handed out under Kineto's callbacks go back to Kineto first: each side frees only its own.
  g->cupti.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (std::string problems = enableActivities(); !problems.empty()) notice("warning", "CUPTI after the CPU profiler: " + problems);
}

// Kineto is done: take the activity API back.
__attribute__((visibility("default"))) void sawtooth_cupti_resume(void) {
  if (!g || !g->yielded.exchange(false)) return;
  debug("resume after torch.profiler");
  g->cupti.activityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // Kineto's buffers back to Kineto first
  if (g->paused.load()) return;  // enabled again when the pause ends
  if (std::string problems = enableActivities(); !problems.empty())
    notice("warning", "CUPTI after torch.profiler: " + problems);
  else
    notice("info", "torch.profiler released CUPTI: driver allocations and kernels are recorded again");
}

// The process is about to die by a signal (the shim's SIGTERM handler: atexit will not run): the
// last delivery now, with the shim's reason. Once: at exit it does nothing more.
__attribute__((visibility("default"))) void sawtooth_cupti_finish(const char* reason) {
  finishWith(reason ? reason : "");
}

// Pauses our activities (bit 1) and the device sampler (bit 2) where they run, or runs both again
// (0); activities are not ours to turn on while torch.profiler has CUPTI.
__attribute__((visibility("default"))) void sawtooth_cupti_pause(int what) {
  if (!g || g->forked.load()) return;
  g->sampler_paused.store((what & 2) != 0);
  const bool paused = (what & 1) != 0;
  if (g->paused.exchange(paused) == paused) return;
  debug(paused ? "pause" : "resume after a pause");
  if (g->yielded.load()) return;
  if (paused) {
    disableActivities();
  } else if (std::string problems = enableActivities(); !problems.empty()) {
    notice("warning", "CUPTI after a pause: " + problems);
  }
}

}  // extern "C"
