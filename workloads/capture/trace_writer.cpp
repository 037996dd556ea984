#include "workloads/capture/trace_writer.h"

#include <algorithm>

#include <fmt/format.h>

namespace sawtooth::capture {
namespace {

// Records stamped within this margin of "now" may still be on their way into a queue from
// another thread; they wait for the next batch so that the stream stays in time order.
constexpr int64_t kHoldBackNs = 2'000'000;

}  // namespace

TraceWriter::TraceWriter(std::unique_ptr<NativeWriter> file, int64_t t0_ns) : file_(std::move(file)), t0_ns_(t0_ns) {}

TraceWriter::~TraceWriter() {
  if (!finished_) (void)finish();
}

void TraceWriter::addQueue(RecordQueue* queue, bool live) { queues_.emplace_back(queue, live); }

void TraceWriter::start(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] { run(interval); });
}

void TraceWriter::run(std::chrono::milliseconds interval) {
  while (!stopping_.load()) {
    {
      std::unique_lock<std::mutex> lock(wake_mutex_);
      wake_.wait_for(lock, interval, [this] { return stopping_.load(); });
    }
    if (stopping_.load()) break;
    flushOnce(false);
  }
}

Status TraceWriter::finish() {
  if (finished_) return error_.empty() ? Status(Ok{}) : Status(Error{error_});
  stopping_.store(true);
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  flushOnce(true);
  // Phases still open when the recording stopped end at the last moment seen.
  int64_t last = 0;
  for (const auto& [id, p] : phases_) last = std::max({last, p.begin_ns, p.end_ns});
  for (uint32_t id : phase_stack_) {
    phases_[id].end_ns = last;
    dirty_phases_.push_back(id);
  }
  phase_stack_.clear();
  if (Status st = writeBatch(); !st) fail(st.error().message);
  finished_ = true;
  if (error_.empty())
    if (Status st = file_->finish(); !st) fail(st.error().message);
  std::lock_guard<std::mutex> lock(mutex_);
  return error_.empty() ? Status(Ok{}) : Status(Error{error_});
}

void TraceWriter::definePhase(uint32_t id, std::string name, uint16_t run, PhaseKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  Phase p;
  p.name = std::move(name);
  p.kind = kind;
  p.run = run;
  pending_phases_[id] = std::move(p);
}

void TraceWriter::defineRun(uint16_t id, Run run) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_runs_[id] = std::move(run);
}

void TraceWriter::setMeta(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_meta_[key] = value;
}

void TraceWriter::addKernels(std::vector<KernelInterval> kernels, const std::vector<std::string>& names_by_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (names_by_id.size() > kernel_names_.size()) kernel_names_ = names_by_id;
  for (auto& k : kernels) {
    k.begin_ns -= t0_ns_;
    k.end_ns -= t0_ns_;
    k.run = kNoRun;
    pending_kernels_.push_back(k);
  }
}

TraceWriter::Stats TraceWriter::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::string TraceWriter::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void TraceWriter::fail(const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_.empty()) error_ = message;
}

void TraceWriter::flushOnce(bool everything) {
  std::vector<CaptureRecord> records;
  records.swap(held_back_);
  const int64_t cutoff = everything ? INT64_MAX : clockNs() - kHoldBackNs;
  CaptureRecord r;
  for (auto& [queue, live] : queues_) {
    while (queue->tryPop(r)) records.push_back(std::move(r));
  }
  // Live records newer than the cutoff wait; late sources (CUPTI) never do.
  std::vector<CaptureRecord> now;
  now.reserve(records.size());
  for (auto& rec : records) {
    if (rec.t_ns > cutoff && rec.source != Source::Driver) held_back_.push_back(std::move(rec));
    else now.push_back(std::move(rec));
  }
  std::stable_sort(now.begin(), now.end(), [](const CaptureRecord& a, const CaptureRecord& b) { return a.t_ns < b.t_ns; });
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch_first_seq_ = stats_.events;
  }
  for (auto& rec : now) process(rec);
  if (Status st = writeBatch(); !st) fail(st.error().message);
}

uint32_t TraceWriter::phaseAt(int64_t t, uint16_t* run) const {
  // Innermost (latest begun) phase covering t; late records need this, live ones use the stack.
  uint32_t best = kNoPhase;
  int64_t best_begin = INT64_MIN;
  for (const auto& [id, p] : phases_) {
    if (p.kind == PhaseKind::Annotation) continue;
    const bool open = std::find(phase_stack_.begin(), phase_stack_.end(), id) != phase_stack_.end();
    if (p.begin_ns <= t && (open || t <= p.end_ns) && p.begin_ns >= best_begin) best = id, best_begin = p.begin_ns;
  }
  if (run) *run = best == kNoPhase ? current_run_ : phases_.at(best).run;
  return best;
}

std::function<bool(uint32_t)> TraceWriter::bornInForward(uint16_t run) const {
  return [this, run](uint32_t phase) {
    auto it = phases_.find(phase);
    return it != phases_.end() && it->second.name == "forward" && it->second.run == run;
  };
}

void TraceWriter::process(CaptureRecord& r) {
  const int64_t t = r.t_ns - t0_ns_;
  switch (r.kind) {
    case RecordKind::Memory:
      processMemory(r);
      break;
    case RecordKind::Sample: {
      Event e;
      e.t_ns = t;
      e.device = r.device;
      e.source = Source::Sample;
      e.action = Action::Sample;
      e.size = r.size;
      e.addr = r.addr;
      e.phase = currentPhase();
      e.run = current_run_;
      batch_.push(e);
      break;
    }
    case RecordKind::PhaseBegin: {
      Phase p;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = pending_phases_.find(r.id);
        if (it == pending_phases_.end()) break;
        p = std::move(it->second);
        pending_phases_.erase(it);
      }
      p.begin_ns = p.end_ns = t;
      phases_[r.id] = p;
      dirty_phases_.push_back(r.id);
      if (p.kind == PhaseKind::Annotation) break;
      phase_stack_.push_back(r.id);
      // What forward made and backward still needs: the activations.
      if (p.name == "backward") live_.markActivations(bornInForward(p.run), updates_);
      break;
    }
    case RecordKind::PhaseEnd: {
      auto it = phases_.find(r.id);
      if (it == phases_.end()) break;
      it->second.end_ns = t;
      if (it->second.name == "backward" && it->second.kind == PhaseKind::Phase) live_.unmarkSurvivors(bornInForward(it->second.run), updates_);
      dirty_phases_.push_back(r.id);
      auto pos = std::find(phase_stack_.begin(), phase_stack_.end(), r.id);
      if (pos != phase_stack_.end()) phase_stack_.erase(pos);
      break;
    }
    case RecordKind::Tag:
      if (!live_.tag(r.device, r.addr, r.category, updates_)) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.untracked_tags;
      }
      break;
    case RecordKind::RunBegin:
      current_run_ = static_cast<uint16_t>(r.id);
      dirty_runs_.push_back(current_run_);
      break;
    case RecordKind::RunEnd:
      dirty_runs_.push_back(static_cast<uint16_t>(r.id));
      current_run_ = kNoRun;
      break;
  }
}

void TraceWriter::processMemory(CaptureRecord& r) {
  Event e;
  e.t_ns = r.t_ns - t0_ns_;
  e.device = r.device;
  e.source = r.source;
  e.action = r.action;
  e.addr = r.addr;
  e.size = r.size;
  e.stream = r.stream;
  const uint64_t seq = batch_first_seq_ + batch_.size();
  if (r.source == Source::Driver) {
    e.phase = phaseAt(e.t_ns, &e.run);
  } else if (r.source == Source::Host) {
    // The cross-check reports share addresses with the allocator's own events; only those
    // carry categories.
    e.phase = currentPhase();
    e.run = current_run_;
  } else {
    e.phase = currentPhase();
    e.run = current_run_;
    switch (r.action) {
      case Action::Alloc: {
        live_.onAlloc(r.device, r.addr, r.size, seq, e.phase);
        // Recomputed blocks are activations brought back for backward.
        if (e.phase != kNoPhase && phases_[e.phase].name == "recompute") {
          std::vector<LiveBlocks::Update> ignored;
          live_.tag(r.device, r.addr, Category::Activation, ignored);
          e.category = Category::Activation;
        }
        break;
      }
      case Action::FreeRequested: e.category = live_.onFreeRequested(r.device, r.addr, seq); break;
      case Action::FreeCompleted: e.category = live_.onFreeCompleted(r.device, r.addr, e.phase, updates_); break;
      default: break;
    }
  }
  if (r.context) batch_contexts_.emplace_back(batch_.size(), std::move(r.context));
  batch_.push(e);
}

void TraceWriter::applyUpdates() {
  // Updates to rows of this batch change the buffer; older rows are updated in the file.
  std::vector<LiveBlocks::Update> to_file;
  for (const auto& u : updates_) {
    if (u.seq >= batch_first_seq_ && u.seq < batch_first_seq_ + batch_.size())
      batch_.setCategory(u.seq - batch_first_seq_, u.category);
    else
      to_file.push_back(u);
  }
  updates_.swap(to_file);
}

Status TraceWriter::writeBatch() {
  applyUpdates();
  // Stacks first: the batch's events refer to them.
  if (!batch_contexts_.empty() && symbolizer_) {
    std::vector<std::shared_ptr<void>> contexts;
    for (auto& [i, c] : batch_contexts_) contexts.push_back(c);
    const auto frames = symbolizer_(contexts);
    std::vector<uint32_t> ids;
    for (size_t k = 0; k < batch_contexts_.size() && k < frames.size(); ++k) {
      ids.clear();
      for (const Frame& f : frames[k]) ids.push_back(stacks_.internFrame(f.name, f.file, f.line));
      if (!ids.empty()) batch_.setStack(batch_contexts_[k].first, stacks_.internStack(ids));
    }
  }
  batch_contexts_.clear();

  std::map<uint32_t, Phase> phases;
  std::map<uint16_t, Run> runs;
  std::map<std::string, std::string> meta;
  std::vector<KernelInterval> kernels;
  std::vector<std::string> kernel_names;
  size_t names_from = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (uint16_t id : dirty_runs_)
      if (auto it = pending_runs_.find(id); it != pending_runs_.end()) runs[id] = it->second;
    meta.swap(pending_meta_);
    kernels.swap(pending_kernels_);
    kernel_names = kernel_names_;
    names_from = kernel_names_written_;
  }
  for (uint32_t id : dirty_phases_) phases[id] = phases_[id];
  dirty_phases_.clear();
  dirty_runs_.clear();
  for (auto& k : kernels) phaseAt(k.begin_ns, &k.run);

  const bool nothing = batch_.empty() && updates_.empty() && phases.empty() && runs.empty() && meta.empty() &&
                       kernels.empty() && stacks_.frameCount() == frames_written_;
  if (nothing) return Ok{};
  if (Status st = file_->beginBatch(); !st) return st;
  if (Status st = file_->writeStacks(stacks_, frames_written_, stacks_written_); !st) return st;
  frames_written_ = stacks_.frameCount();
  stacks_written_ = stacks_.stackCount();
  for (const auto& [id, run] : runs)
    if (Status st = file_->writeRun(id, run); !st) return st;
  for (const auto& [id, p] : phases)
    if (Status st = file_->writePhase(id, p); !st) return st;
  for (const auto& [k, v] : meta)
    if (Status st = file_->setMeta(k, v); !st) return st;
  for (size_t i = names_from; i < kernel_names.size(); ++i)
    if (Status st = file_->writeKernelName(static_cast<uint32_t>(i), kernel_names[i]); !st) return st;
  if (Status st = file_->appendKernels(kernels); !st) return st;
  if (Status st = file_->appendEventsAt(batch_, 0, batch_.size(), batch_first_seq_); !st) return st;
  for (const auto& u : updates_)
    if (Status st = file_->updateCategory(u.seq, u.category); !st) return st;
  if (Status st = file_->commitBatch(); !st) return st;

  std::lock_guard<std::mutex> lock(mutex_);
  stats_.events += batch_.size();
  stats_.category_updates += updates_.size();
  stats_.kernels += kernels.size();
  ++stats_.batches;
  kernel_names_written_ = kernel_names.size();
  batch_first_seq_ = stats_.events;
  updates_.clear();
  batch_.clear();
  return Ok{};
}

}  // namespace sawtooth::capture
