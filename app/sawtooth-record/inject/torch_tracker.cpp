#include "app/sawtooth-record/inject/torch_tracker.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include <torch/csrc/profiler/combined_traceback.h>

#include "app/sawtooth-record/inject/delivery_pace.h"
#include "app/sawtooth-record/inject/wire.h"
#include "app/sawtooth-record/inject/wire_connection.h"
#include "core/model/action.h"
#include "workloads/capture/bounded_queue.h"

namespace sawtooth::tracker {
namespace {

using c10::CachingDeviceAllocator::TraceEntry;
using sawtooth::Action;
namespace wire = sawtooth::wire;
namespace capture = sawtooth::capture;

constexpr size_t kQueueCapacity = 1 << 18;
constexpr size_t kMaxRecordsPerFrame = (wire::kMaxPayload / 2) / sizeof(wire::Record);

struct Pending {
  int64_t t_ns = 0;
  uint64_t addr = 0;
  int64_t size = 0;
  uint64_t stream = 0;
  int16_t device = 0;
  uint8_t action = 0;
  std::shared_ptr<c10::GatheredContext> context;
};

std::optional<Action> actionOf(TraceEntry::Action a) {
  switch (a) {
    case TraceEntry::ALLOC: return Action::Alloc;
    case TraceEntry::FREE_REQUESTED: return Action::FreeRequested;
    case TraceEntry::FREE_COMPLETED: return Action::FreeCompleted;
    case TraceEntry::SEGMENT_ALLOC: return Action::SegmentAlloc;
    case TraceEntry::SEGMENT_FREE: return Action::SegmentFree;
    case TraceEntry::SEGMENT_MAP: return Action::SegmentMap;
    case TraceEntry::SEGMENT_UNMAP: return Action::SegmentUnmap;
    case TraceEntry::SNAPSHOT: return Action::Snapshot;
    case TraceEntry::OOM: return Action::Oom;
    default: return std::nullopt;
  }
}

class Tracker {
 public:
  capture::BoundedQueue<Pending> queue{kQueueCapacity};
  std::atomic<bool> on{false};
  // Entries seen: those the sending thread took from the queue, and those dropped (counted
  // there and on a full queue, not per entry on the program's thread).
  std::atomic<uint64_t> taken{0}, dropped{0};
  uint64_t seen() const { return taken.load() + dropped.load(); }

  bool start(const char* socket_path, bool with_stacks, int interval_ms, std::string& error) {
    std::lock_guard<std::mutex> lock(control_);
    if (thread_.joinable()) return true;
    const std::string hello = "{\"role\": \"tracker\", \"pid\": " + std::to_string(getpid()) +
                              ", \"stacks\": " + (with_stacks ? "true" : "false") + "}";
    if (!connection_.open(socket_path, hello)) {
      error = "cannot connect to the recorder";
      return false;
    }
    with_stacks_ = with_stacks;
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
    std::string bye;
    wire::appendFrame(bye, wire::FrameType::Bye, 0,
                      "{\"reason\": " + wire::jsonQuote(reason) + ", \"dropped\": " + std::to_string(dropped.load()) +
                          ", \"events\": " + std::to_string(seen()) + ", \"deliveries\": " +
                          std::to_string(deliveries_) + ", \"symbolize_ms\": " +
                          std::to_string(symbolize_ns_ / 1'000'000) + "}");
    connection_.send(bye);
    connection_.close();
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
    if (with_stacks_) {
      const int64_t t0 = wire::monotonicNs();
      symbolize(stack_of);
      delivery.symbolize_ns = wire::monotonicNs() - t0;
    }
    std::string out;
    stacks_.appendNew(out, 0);
    std::string payload;
    for (size_t i = 0; i < batch_.size(); ++i) {
      const Pending& b = batch_[i];
      wire::Record r{b.t_ns, b.addr, b.size, b.stream, stack_of[i], b.device, b.action,
                     static_cast<uint8_t>(wire::RecordKind::Allocator)};
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

  void symbolize(std::vector<uint32_t>& stack_of) {
    std::vector<torch::CapturedTraceback*> tracebacks;
    std::vector<size_t> owners;
    for (size_t i = 0; i < batch_.size(); ++i)
      if (auto* tb = dynamic_cast<torch::CapturedTraceback*>(batch_[i].context.get())) {
        tracebacks.push_back(tb);
        owners.push_back(i);
      }
    if (tracebacks.empty()) return;
    const torch::SymbolizedTracebacks s = torch::symbolize(tracebacks);
    std::vector<uint32_t> frame_ids(s.all_frames.size());
    for (size_t f = 0; f < s.all_frames.size(); ++f) {
      const auto& fr = s.all_frames[f];
      frame_ids[f] = stacks_.frame(fr.funcname, fr.filename, static_cast<int32_t>(fr.lineno));
    }
    std::vector<uint32_t> ids;
    for (size_t k = 0; k < s.tracebacks.size() && k < owners.size(); ++k) {
      ids.clear();
      for (uint64_t f : s.tracebacks[k])
        if (f < frame_ids.size()) ids.push_back(frame_ids[f]);
      if (!ids.empty()) stack_of[owners[k]] = stacks_.stack(ids);
    }
  }

  std::mutex control_;
  wire::Connection connection_;
  std::thread thread_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool forked_ = false;
  bool with_stacks_ = false;
  DeliveryPace pace_;
  uint64_t deliveries_ = 0;   // the sending thread's, read after it joined
  int64_t symbolize_ns_ = 0;
  std::vector<Pending> batch_;
  wire::StackTable stacks_;
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

void onTraceEntry(const TraceEntry& te) {
  Tracker& t = tracker();
  if (!t.on.load(std::memory_order_acquire)) return;
  const auto action = actionOf(te.action_);
  if (!action) return;
  Pending p;
  p.t_ns = wire::monotonicNs();
  p.addr = te.addr_;
  p.size = static_cast<int64_t>(te.size_);
  p.stream = reinterpret_cast<uint64_t>(te.stream_);
  p.device = static_cast<int16_t>(te.device_);
  p.action = static_cast<uint8_t>(*action);
  p.context = te.context_;
  if (!t.queue.tryPush(std::move(p))) t.dropped.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace sawtooth::tracker
