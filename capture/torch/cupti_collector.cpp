#include "capture/torch/cupti_collector.h"

#include "capture/cupti/activity_decoder.h"

#include <cupti.h>
#include <fmt/format.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace sawtooth::capture {
namespace {

constexpr size_t kBufferSize = 4 << 20;
constexpr size_t kAlignment = 8;

struct State {
  CuptiSinks sinks;
  std::mutex mutex;  // CUPTI may complete buffers on several threads
  // A kernel's name is one string CUPTI shares between its records: its address finds the id
  // without building a string of the (long, mangled) name for every launch; the comparison
  // guards against an address reused for another name.
  std::unordered_map<const char*, uint32_t> id_by_pointer;
  std::unordered_map<std::string, uint32_t> id_by_name;
  std::vector<std::string> names;
  std::atomic<uint64_t> memory{0}, pools{0}, kernel_count{0}, dropped{0}, buffers{0};

  std::thread flusher;
  std::mutex flusher_mutex;
  std::condition_variable flusher_wake;
  bool flusher_stop = false;
};
State* g_state = nullptr;

uint64_t CUPTIAPI sessionClock() { return static_cast<uint64_t>(clockNs()); }

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferSize));
  *size = *buffer ? kBufferSize : 0;
  *max_records = 0;
}

uint32_t kernelId(State& s, const char* name, std::vector<std::pair<uint32_t, std::string>>& new_names) {
  if (!name) name = "?";
  std::lock_guard<std::mutex> lock(s.mutex);
  if (auto it = s.id_by_pointer.find(name); it != s.id_by_pointer.end() && s.names[it->second] == name)
    return it->second;
  auto [it, inserted] = s.id_by_name.try_emplace(name, static_cast<uint32_t>(s.names.size()));
  if (inserted) {
    s.names.emplace_back(name);
    new_names.emplace_back(it->second, name);
  }
  s.id_by_pointer[name] = it->second;
  return it->second;
}

// The decoded records of one buffer, handed to the session's sinks.
struct BufferRecords {
  State& s;
  bool recording;
  std::vector<KernelInterval> kernels;
  std::vector<std::pair<uint32_t, std::string>> new_names;

  void onMemory(const cupti::DriverMemory& m) {
    if (!recording) return;
    CaptureRecord r;
    r.t_ns = m.t_ns;
    r.kind = RecordKind::Memory;
    r.source = Source::Driver;
    r.action = m.alloc ? Action::Alloc : Action::FreeCompleted;
    r.device = m.device;
    r.addr = m.addr;
    r.size = m.bytes;
    r.stream = m.stream;
    pushOrDrop(*s.sinks.memory_queue, r, s.sinks.wakeup, *s.sinks.memory_counters);
  }
  void onKernel(const cupti::KernelSpan& k) {
    if (!recording) return;
    kernels.push_back(KernelInterval{k.device, k.stream, k.begin_ns, k.end_ns, kernelId(s, k.name, new_names)});
  }
  void onMarker(const cupti::MarkerEdge&) {}  // the workloads mark their phases themselves
};

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  State* s = g_state;
  if (s) {
    const bool recording = !s->sinks.recording || s->sinks.recording->load(std::memory_order_relaxed);
    BufferRecords out{*s, recording, {}, {}};
    cupti::ActivityCounts counts;
    cupti::decodeActivityBuffer(cuptiActivityGetNextRecord, buffer, valid, out, counts);
    s->memory.fetch_add(counts.memory, std::memory_order_relaxed);
    s->pools.fetch_add(counts.pools, std::memory_order_relaxed);
    s->kernel_count.fetch_add(counts.kernels, std::memory_order_relaxed);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) s->dropped.fetch_add(dropped);
    s->buffers.fetch_add(1, std::memory_order_relaxed);
    if ((!out.kernels.empty() || !out.new_names.empty()) && s->sinks.kernels)
      s->sinks.kernels(std::move(out.kernels), std::move(out.new_names));
  }
  std::free(buffer);
}

std::string describe(CUptiResult rc) {
  const char* text = nullptr;
  cuptiGetResultString(rc, &text);
  return text ? text : fmt::format("CUPTI error {}", static_cast<int>(rc));
}

}  // namespace

Result<CuptiCollector*> CuptiCollector::start(CuptiSinks sinks, bool with_kernels, std::chrono::milliseconds flush_interval) {
  static CuptiCollector collector;
  uint32_t version = 0;
  if (CUptiResult rc = cuptiGetVersion(&version); rc != CUPTI_SUCCESS) return Error{"CUPTI: " + describe(rc)};
  collector.version_ = std::to_string(version);
  if (!g_state) g_state = new State();  // lives for the process: CUPTI may call back until exit
  g_state->sinks = std::move(sinks);
  if (CUptiResult rc = cuptiActivityRegisterTimestampCallback(sessionClock); rc != CUPTI_SUCCESS)
    return Error{"CUPTI timestamp callback: " + describe(rc)};
  if (CUptiResult rc = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted); rc != CUPTI_SUCCESS)
    return Error{"CUPTI callbacks: " + describe(rc)};
  std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL};
  if (with_kernels) kinds.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  for (CUpti_ActivityKind kind : kinds)
    if (CUptiResult rc = cuptiActivityEnable(kind); rc != CUPTI_SUCCESS)
      return Error{fmt::format("CUPTI cannot trace activity kind {}: {}", static_cast<int>(kind), describe(rc))};
  // CUPTI's own worker hands over only full buffers; a default flush at a steady pace hands over
  // every buffer whose records are complete ("can be done at a regular interval in a separate
  // thread", cupti_activity.h).
  State* s = g_state;
  s->flusher_stop = false;
  s->flusher = std::thread([s, flush_interval] {
    std::unique_lock<std::mutex> lock(s->flusher_mutex);
    while (!s->flusher_wake.wait_for(lock, flush_interval, [s] { return s->flusher_stop; })) {
      lock.unlock();
      cuptiActivityFlushAll(0);
      lock.lock();
    }
  });
  return &collector;
}

void CuptiCollector::flushAll() { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

void CuptiCollector::stop() {
  if (State* s = g_state; s && s->flusher.joinable()) {
    {
      std::lock_guard<std::mutex> lock(s->flusher_mutex);
      s->flusher_stop = true;
    }
    s->flusher_wake.notify_all();
    s->flusher.join();
  }
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL})
    cuptiActivityDisable(kind);
}

CuptiStats CuptiCollector::stats() const {
  CuptiStats s;
  if (!g_state) return s;
  s.memory_records = g_state->memory.load();
  s.pool_records = g_state->pools.load();
  s.kernel_records = g_state->kernel_count.load();
  s.dropped = g_state->dropped.load();
  s.buffers = g_state->buffers.load();
  return s;
}

}  // namespace sawtooth::capture
