#include "capture/inject/torch_tracker.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <pthread.h>
#include <unistd.h>

#include <torch/csrc/profiler/combined_traceback.h>

#include "capture/inject/approximate_clock.h"
#include "capture/inject/delivery_pace.h"
#include "capture/inject/frame_cache.h"
#include "capture/inject/module_context.h"
#include "capture/inject/python_frames.h"
#include "capture/writer/sequence_map.h"
#include "core/recording/wire.h"
#include "capture/inject/wire_connection.h"
#include "core/model/action.h"
#include "capture/writer/bounded_queue.h"
#include "capture/torch/trace_entry_action.h"

namespace sawtooth::tracker {
namespace {

using c10::CachingDeviceAllocator::TraceEntry;
using sawtooth::Action;
namespace wire = sawtooth::wire;
namespace capture = sawtooth::capture;

constexpr size_t kQueueCapacity = 1 << 18;
constexpr size_t kMaxRecordsPerFrame = (wire::kMaxPayload / 2) / sizeof(wire::Record);

// A traceback's frames, which CapturedTraceback keeps private: the cache needs the Python frames'
// (code object, offset) before it asks torch to symbolize them. Names in an explicit
// instantiation are exempt from access checks ([temp.spec.general]/6), and the shim loads this
// library only into the torch build it was compiled against, so the members are the ones seen here.
template <class Tag, typename Tag::type M>
struct Expose {
  friend typename Tag::type member(Tag) { return M; }
};
struct PythonFramesOf {
  using type = std::vector<torch::CapturedTraceback::PyFrame> torch::CapturedTraceback::*;
  friend type member(PythonFramesOf);
};
struct CppFramesOf {
  using type = std::vector<void*> torch::CapturedTraceback::*;
  friend type member(CppFramesOf);
};
struct ScriptFramesOf {
  using type = std::vector<torch::jit::StackEntry> torch::CapturedTraceback::*;
  friend type member(ScriptFramesOf);
};
template struct Expose<PythonFramesOf, &torch::CapturedTraceback::frames_>;
template struct Expose<CppFramesOf, &torch::CapturedTraceback::cpp_frames_>;
template struct Expose<ScriptFramesOf, &torch::CapturedTraceback::script_frames_>;

enum class FramesKind { None, PythonOnly, Mixed };

// A traceback's Python frames as cache keys, when Python frames are all it has (C++ and
// TorchScript frames are symbolized by torch every time).
FramesKind cacheKeys(const torch::CapturedTraceback& tb, std::vector<FrameCache::Key>& keys) {
  keys.clear();
  const auto& python = tb.*member(PythonFramesOf{});
  const bool others = !(tb.*member(CppFramesOf{})).empty() || !(tb.*member(ScriptFramesOf{})).empty();
  if (others) return FramesKind::Mixed;
  if (python.empty()) return FramesKind::None;
  for (const auto& f : python) keys.push_back({f.code, f.lasti});
  return FramesKind::PythonOnly;
}

struct Pending {
  int64_t t = 0;  // PyTorch's approximate clock when `approximate`, else monotonic nanoseconds
  uint64_t addr = 0;
  int64_t size = 0;
  uint64_t stream = 0;
  int16_t device = 0;
  uint8_t action = 0;
  bool approximate = false;
  wire::RecordKind kind = wire::RecordKind::Allocator;  // or a module's ModuleEnter / ModuleExit
  ModuleNow module;  // an allocation's module (by_sequence: resolved when sent); a mark's module and thread
  std::shared_ptr<c10::GatheredContext> context;
};

// A stamp further than this from its delivery is not PyTorch's approximate clock as we read it.
constexpr int64_t kStampTolerance = 10'000'000'000;

// Both clocks read together: the tightest of a few tries, so that a thread preempted between
// the readings does not skew the mapping.
void anchorNow(ApproximateClock& clock) {
  uint64_t best_approx = 0, best_span = UINT64_MAX;
  int64_t best_ns = 0;
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = c10::getApproximateTime();
    const int64_t ns = wire::monotonicNs();
    const uint64_t after = c10::getApproximateTime();
    if (after >= before && after - before < best_span) {
      best_span = after - before;
      best_approx = before + (after - before) / 2;
      best_ns = ns;
    }
  }
  if (best_span != UINT64_MAX) clock.anchor(best_approx, best_ns);
}


class Tracker {
 public:
  capture::BoundedQueue<Pending> queue{kQueueCapacity};
  std::atomic<bool> on{false};
  // Entries seen: those the sending thread took from the queue, and those dropped (counted
  // there and on a full queue, not per entry on the program's thread).
  std::atomic<uint64_t> taken{0}, dropped{0};
  std::atomic<uint64_t> idle_calls{0};
  // Whether entries keep PyTorch's stamp (approximate_clock.h); SAWTOOTH_TRACKER_CLOCK=monotonic, or
  // a stamp that does not map near its delivery, has the tracker read the monotonic clock instead.
  std::atomic<bool> approximate_clock{true};
  // Whether entries carry stacks: read by the sending thread and by the threads that gather a CPU
  // allocation's stack.
  std::atomic<bool> stacks{false};
  // While the shim probes the CUDA allocator (cuda_native.py): its entries are counted as idle, not sent.
  std::atomic<bool> probing{false};
  // Whether torch's symbolizer may run on the sending thread (python_frames.h says why not before).
  std::atomic<bool> torch_symbolizer{false};
  // Whether an allocation carries its module (setTagModules).
  std::atomic<bool> tag_modules{true};
  uint64_t seen() const { return taken.load() + dropped.load(); }

  bool start(const char* socket_path, bool with_stacks, int interval_ms, std::string& error) {
    std::lock_guard<std::mutex> lock(control_);
    if (thread_.joinable()) return true;
    // "modules": each allocation's module and pass are ours to say (module_context.h).
    const std::string hello = "{\"role\": \"tracker\", \"pid\": " + std::to_string(getpid()) +
                              ", \"stacks\": " + (with_stacks ? "true" : "false") + ", \"modules\": true}";
    if (!connection_.open(socket_path, hello)) {
      error = "cannot connect to the recorder";
      return false;
    }
    stacks.store(with_stacks);
    const char* cache = std::getenv("SAWTOOTH_TRACKER_FRAME_CACHE");  // "0": symbolize every frame every time
    use_cache_ = !(cache && std::strcmp(cache, "0") == 0);
    // A new connection knows none of the frames and stacks sent before.
    stacks_ = wire::StackTable{};
    cache_.clear();
    frames_symbolized_ = 0;
    from_cache_ = 0;
    taken = 0;  // the goodbye counts this connection's entries
    dropped = 0;
    deliveries_ = 0;
    symbolize_ns_ = 0;
    clock_mismatches_ = 0;
    const char* clock = std::getenv("SAWTOOTH_TRACKER_CLOCK");
    approximate_clock.store(!(clock && std::strcmp(clock, "monotonic") == 0));
    clock_ = ApproximateClock{};
    anchorNow(clock_);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a first slope, refined at each delivery
    anchorNow(clock_);
    pace_.floor = std::chrono::milliseconds(interval_ms > 0 ? interval_ms : 50);
    stopping_ = false;
    // Nothing of this stream is older than now: the recorder need not wait for it.
    std::string first;
    wire::appendFrame(first, wire::FrameType::Watermark, 0, timePayload(wire::monotonicNs()));
    connection_.send(first);
    thread_ = std::thread([this] { run(); });
    on.store(true, std::memory_order_release);
    return true;
  }

  void stop(const std::string& reason) {
    if (forked_) return;
    std::lock_guard<std::mutex> lock(control_);
    on.store(false, std::memory_order_release);
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> w(wake_mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    cache_.clear();  // lets the pinned code objects go
    std::string bye;
    wire::appendFrame(bye, wire::FrameType::Bye, 0,
                      "{\"reason\": " + wire::jsonQuote(reason) + ", \"dropped\": " + std::to_string(dropped.load()) +
                          ", \"events\": " + std::to_string(seen()) + ", \"deliveries\": " +
                          std::to_string(deliveries_) + ", \"symbolize_ms\": " +
                          std::to_string(symbolize_ns_ / 1'000'000) + ", \"frames_symbolized\": " +
                          std::to_string(frames_symbolized_) + ", \"stacks_from_cache\": " +
                          std::to_string(from_cache_) + ", \"frame_cache\": " + (use_cache_ ? "true" : "false") +
                          ", \"clock\": " + (approximate_clock.load() ? "\"approximate\"" : "\"monotonic\"") +
                          ", \"clock_mismatches\": " + std::to_string(clock_mismatches_) + "}");
    connection_.send(bye);
    connection_.close();
  }

  // Entries while paused are ignored (counted as idle); the connection and the sending thread stay.
  void setPaused(bool paused) {
    std::lock_guard<std::mutex> lock(control_);
    if (thread_.joinable() && !forked_) on.store(!paused, std::memory_order_release);  // stop() holds control_ throughout
  }

  // In a forked child the drain thread does not exist and the stream is the parent's: this
  // process sends nothing (no lock is taken: another thread may have held it at the fork).
  void forgetAfterFork() {
    forked_ = true;
    on.store(false);
    connection_.forget();
  }

 private:
  static std::string timePayload(int64_t t) { return std::string(reinterpret_cast<const char*>(&t), sizeof t); }

  void run() {
    pthread_setname_np(pthread_self(), "sawtooth-track");  // ours, told apart in the program's thread list
    std::unique_lock<std::mutex> lock(wake_mutex_);
    int64_t since = wire::monotonicNs();
    for (;;) {
      const bool last = stopping_;
      lock.unlock();
      const Delivery d = drain();  // when the recorder is gone this only empties the queue
      ++deliveries_;
      symbolize_ns_ += d.symbolize_ns;
      const int64_t now = wire::monotonicNs();
      const auto wait = nextDeliveryWait(pace_, d.symbolize_ns, d.events, now - since, kQueueCapacity);
      since = now;
      lock.lock();
      if (last) break;
      wake_.wait_for(lock, wait, [this] { return stopping_; });
    }
  }

  struct Delivery {
    size_t events = 0;
    int64_t symbolize_ns = 0;
  };

  // Sends everything queued before now (a recorder that is gone only empties the queue).
  Delivery drain() {
    anchorNow(clock_);
    const int64_t mark = wire::monotonicNs();
    batch_.clear();
    Pending p;
    while (queue.tryPop(p)) {
      batch_.push_back(std::move(p));
      if (batch_.size() >= kQueueCapacity) break;
    }
    taken.fetch_add(batch_.size(), std::memory_order_relaxed);
    Delivery delivery;
    delivery.events = batch_.size();
    std::vector<uint32_t> stack_of(batch_.size(), wire::kNoStack);
    if (stacks.load(std::memory_order_relaxed)) {
      const int64_t t0 = wire::monotonicNs();
      symbolize(stack_of);
      delivery.symbolize_ns = wire::monotonicNs() - t0;
    }
    std::string out;
    stacks_.appendNew(out, 0);
    std::string payload;
    for (size_t i = 0; i < batch_.size(); ++i) {
      const Pending& b = batch_[i];
      wire::Record r{timeOf(b, mark), b.addr, b.size, b.stream, stack_of[i], b.device, b.action,
                     static_cast<uint8_t>(b.kind)};
      r.module = moduleOf(b);
      r.pass = b.module.pass;
      if (b.kind != wire::RecordKind::Allocator) r.stream = b.module.thread;
      wire::appendPod(payload, r);
      if ((i + 1) % kMaxRecordsPerFrame == 0) {
        wire::appendFrame(out, wire::FrameType::Records, 0, payload);
        payload.clear();
      }
    }
    if (!payload.empty()) wire::appendFrame(out, wire::FrameType::Records, 0, payload);
    wire::appendFrame(out, wire::FrameType::Watermark, 0, timePayload(mark));
    batch_.clear();  // the contexts go now, off the allocator's lock
    connection_.send(out);
    return delivery;
  }

  // An entry's module, in queue order: the marks keep the map of which call made which autograd
  // node up to date, and a backward allocation finds its module in it.
  uint32_t moduleOf(const Pending& b) {
    switch (b.kind) {
      case wire::RecordKind::ModuleEnter: sequences_.open(b.module.thread, b.module.module, b.module.seq); break;
      case wire::RecordKind::ModuleExit: sequences_.close(b.module.thread, b.module.module, b.module.seq); break;
      default:
        if (b.module.by_sequence) {
          const uint32_t m = sequences_.find(b.module.thread, b.module.seq);
          return m == capture::SequenceMap::kNone ? wire::kNoModule : m;
        }
    }
    return b.module.module;
  }

  // An entry's monotonic time. A stamp far from its delivery (`mark`) means PyTorch's stamps are
  // not what approximate_clock.h expects: the entry is placed at the delivery, and later entries
  // are stamped with the monotonic clock.
  int64_t timeOf(const Pending& b, int64_t mark) {
    if (!b.approximate) return b.t;
    const int64_t t = clock_.toNs(static_cast<uint64_t>(b.t));
    if (t <= mark + kStampTolerance && t >= mark - kStampTolerance) return t;
    ++clock_mismatches_;
    approximate_clock.store(false, std::memory_order_relaxed);
    return mark;
  }

  // Each traceback's stack id in stack_of. Frames seen in an earlier delivery come from the cache;
  // torch symbolizes the rest (under the program's GIL), and what it returns one for one with the
  // traceback's Python frames joins the cache, the traceback pinned to keep their code objects alive.
  void symbolize(std::vector<uint32_t>& stack_of) {
    cache_.trim();
    std::vector<torch::CapturedTraceback*> tracebacks;
    std::vector<size_t> owners;
    std::vector<FrameCache::Key> keys;
    std::vector<uint32_t> ids;
    for (size_t i = 0; i < batch_.size(); ++i) {
      auto* tb = dynamic_cast<torch::CapturedTraceback*>(batch_[i].context.get());
      if (!tb) continue;
      const FramesKind kind = cacheKeys(*tb, keys);
      if (kind == FramesKind::None) continue;  // no frames: nothing to name (a C++ thread, e.g. autograd's)
      if (use_cache_ && kind == FramesKind::PythonOnly && cache_.lookup(keys.data(), keys.size(), ids)) {
        stack_of[i] = stacks_.stack(ids);
        ++from_cache_;
        continue;
      }
      tracebacks.push_back(tb);
      owners.push_back(i);
    }
    if (!torch_symbolizer.load(std::memory_order_relaxed)) {
      // Python frames named here; torch names only tracebacks without any (C++ frames alone).
      nameOurselves(tracebacks, owners, stack_of);
      size_t kept = 0;
      for (size_t k = 0; k < tracebacks.size(); ++k) {
        if (!(tracebacks[k]->*member(PythonFramesOf{})).empty()) continue;
        tracebacks[kept] = tracebacks[k];
        owners[kept++] = owners[k];
      }
      tracebacks.resize(kept);
      owners.resize(kept);
    }
    if (tracebacks.empty()) return;
    const torch::SymbolizedTracebacks s = torch::symbolize(tracebacks);
    frames_symbolized_ += s.all_frames.size();
    std::vector<uint32_t> frame_ids(s.all_frames.size());
    for (size_t f = 0; f < s.all_frames.size(); ++f) {
      const auto& fr = s.all_frames[f];
      frame_ids[f] = stacks_.frame(fr.funcname, fr.filename, static_cast<int32_t>(fr.lineno));
    }
    for (size_t k = 0; k < s.tracebacks.size() && k < owners.size(); ++k) {
      ids.clear();
      for (uint64_t f : s.tracebacks[k])
        if (f < frame_ids.size()) ids.push_back(frame_ids[f]);
      if (ids.empty()) continue;
      stack_of[owners[k]] = stacks_.stack(ids);
      // One frame per Python frame (none from inductor's generated code) is what the cache holds.
      if (use_cache_ && cacheKeys(*tracebacks[k], keys) == FramesKind::PythonOnly && keys.size() == ids.size())
        cache_.add(keys.data(), ids.data(), ids.size(), batch_[owners[k]].context);
    }
  }

  // symbolize() without torch's symbolizer: the tracebacks' Python frames (python_frames.h), each
  // distinct frame of the delivery named once, as torch's symbolizer does.
  void nameOurselves(const std::vector<torch::CapturedTraceback*>& tracebacks, const std::vector<size_t>& owners,
                     std::vector<uint32_t>& stack_of) {
    std::vector<std::pair<const void*, int>> frames;  // distinct
    std::unordered_map<FrameCache::Key, size_t, FrameCache::KeyHash> index;
    std::vector<std::vector<size_t>> uses(tracebacks.size());  // each traceback's frames in `frames`
    std::vector<FrameCache::Key> keys;
    for (size_t k = 0; k < tracebacks.size(); ++k) {
      if (cacheKeys(*tracebacks[k], keys) != FramesKind::PythonOnly) continue;  // C++ or TorchScript frames: torch's to name
      for (const auto& key : keys) {
        auto [it, added] = index.emplace(key, frames.size());
        if (added) frames.emplace_back(key.code, key.lasti);
        uses[k].push_back(it->second);
      }
    }
    std::vector<PythonFrameName> names;
    if (!namePythonFrames(frames, names)) return;
    frames_symbolized_ += names.size();
    std::vector<uint32_t> frame_ids(names.size());
    for (size_t f = 0; f < names.size(); ++f) frame_ids[f] = stacks_.frame(names[f].name, names[f].file, names[f].line);
    std::vector<uint32_t> ids;
    for (size_t k = 0; k < tracebacks.size(); ++k) {
      if (uses[k].empty()) continue;
      ids.clear();
      for (size_t f : uses[k]) ids.push_back(frame_ids[f]);
      stack_of[owners[k]] = stacks_.stack(ids);
      if (use_cache_ && cacheKeys(*tracebacks[k], keys) == FramesKind::PythonOnly)
        cache_.add(keys.data(), ids.data(), ids.size(), batch_[owners[k]].context);
    }
  }

  std::mutex control_;
  wire::Connection connection_;
  std::thread thread_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool forked_ = false;
  DeliveryPace pace_;
  uint64_t deliveries_ = 0;   // the sending thread's, read after it joined
  int64_t symbolize_ns_ = 0;
  std::vector<Pending> batch_;
  wire::StackTable stacks_;
  bool use_cache_ = true;
  FrameCache cache_;  // the sending thread's, like stacks_
  uint64_t frames_symbolized_ = 0, from_cache_ = 0;
  ApproximateClock clock_;  // the sending thread's, after start()
  capture::SequenceMap sequences_;  // the sending thread's
  uint64_t clock_mismatches_ = 0;
};

Tracker& tracker() {
  static Tracker* t = new Tracker();  // never destroyed: the allocator may call back until exit
  return *t;
}

}  // namespace

bool start(const char* socket_path, bool with_stacks, int interval_ms, std::string& error) {
  return tracker().start(socket_path, with_stacks, interval_ms, error);
}

void stop(const std::string& reason) { tracker().stop(reason); }

void forgetAfterFork() { tracker().forgetAfterFork(); }

uint64_t seen() { return tracker().seen(); }

uint64_t dropped() { return tracker().dropped.load(); }

uint64_t idleCalls() { return tracker().idle_calls.load(); }

void setPaused(bool paused) { tracker().setPaused(paused); }

void useTorchSymbolizer() { tracker().torch_symbolizer.store(true); }

namespace {

// Whether the tracker takes an entry now; one it ignores is counted as idle.
bool takes(Tracker& t, bool probing = false) {
  if (t.on.load(std::memory_order_acquire) && !probing) return true;
  t.idle_calls.fetch_add(1, std::memory_order_relaxed);
  return false;
}

// An entry stamped now, on the clock the tracker reads.
void stampNow(Tracker& t, Pending& p) {
  p.approximate = t.approximate_clock.load(std::memory_order_relaxed);
  p.t = p.approximate ? static_cast<int64_t>(c10::getApproximateTime()) : wire::monotonicNs();
}

void enqueue(Tracker& t, Pending&& p) {
  if (!t.queue.tryPush(std::move(p))) t.dropped.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

void setProbing(bool probing) { tracker().probing.store(probing); }

void setTagModules(bool tag) { tracker().tag_modules.store(tag); }

void onTraceEntry(const TraceEntry& te) {
  Tracker& t = tracker();
  if (!takes(t, t.probing.load(std::memory_order_relaxed))) return;
  const auto action = capture::actionOf(te.action_);
  if (!action) return;
  Pending p;
  p.approximate = t.approximate_clock.load(std::memory_order_relaxed);
  p.t = p.approximate ? static_cast<int64_t>(te.time_.approx_t_) : wire::monotonicNs();
  p.addr = te.addr_;
  p.size = static_cast<int64_t>(te.size_);
  p.stream = reinterpret_cast<uint64_t>(te.stream_);
  p.device = static_cast<int16_t>(te.device_);
  p.action = static_cast<uint8_t>(*action);
  p.context = te.context_;
  if (t.tag_modules.load(std::memory_order_relaxed)) p.module = moduleNow();
  enqueue(t, std::move(p));
}

void onCpuMemory(void* ptr, int64_t size) {
  Tracker& t = tracker();
  if (!takes(t)) return;
  Pending p;
  stampNow(t, p);
  p.addr = reinterpret_cast<uint64_t>(ptr);
  p.size = size > 0 ? size : -size;
  p.device = wire::kCpuDevice;
  p.action = static_cast<uint8_t>(size > 0 ? Action::Alloc : Action::FreeCompleted);
  // The allocation's stack, as PyTorch's history gathers one for CUDA ("python"): a free is
  // found by its address, and gathering its stack would double the cost for nothing shown.
  if (size > 0 && t.stacks.load(std::memory_order_relaxed))
    p.context = torch::CapturedTraceback::gather(/*python=*/true, /*script=*/false, /*cpp=*/false);
  if (t.tag_modules.load(std::memory_order_relaxed)) p.module = moduleNow();
  enqueue(t, std::move(p));
}

namespace {

void pushMark(wire::RecordKind kind, uint32_t module, uint8_t pass, const ModuleMark& mark) {
  Tracker& t = tracker();
  Pending p;
  p.kind = kind;
  stampNow(t, p);
  p.module.module = module;
  p.module.pass = pass;
  p.module.thread = mark.thread;
  p.module.seq = mark.seq;
  enqueue(t, std::move(p));
}

}  // namespace

void moduleEnter(uint32_t module, uint8_t asked) {
  const uint8_t pass = passOfCall(asked);
  const ModuleMark mark = enterModule(module, pass);  // kept while paused: the calls stay paired
  if (tracker().on.load(std::memory_order_acquire)) pushMark(wire::RecordKind::ModuleEnter, module, pass, mark);
}

void moduleExit(uint32_t module) {
  ModuleMark mark;
  if (exitModule(module, mark) && tracker().on.load(std::memory_order_acquire))
    pushMark(wire::RecordKind::ModuleExit, module, 0, mark);
}

}  // namespace sawtooth::tracker
