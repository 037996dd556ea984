#include "capture/writer/trace_writer.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include <fmt/format.h>

namespace sawtooth::capture {
namespace {

// Records stamped within this margin of "now" may still be on their way into a queue from
// another thread; they wait for the next batch so that the stream stays in time order.
constexpr int64_t kHoldBackNs = 2'000'000;
// Late records (CUPTI's) older than this behind the stream are not expected any more: the
// phases they could belong to are forgotten.
constexpr int64_t kPhaseMemoryNs = 30'000'000'000;
// A window of the last N events is trimmed when it has grown by a quarter (at least this many).
constexpr uint64_t kMinWindowSlack = 4096;

}  // namespace

TraceWriter::TraceWriter(std::unique_ptr<NativeWriter> file, int64_t t0_ns, WindowOptions window)
    : file_(std::move(file)), t0_ns_(t0_ns), window_(window) {
  forward_name_ = internPhaseName("forward");
  backward_name_ = internPhaseName("backward");
  recompute_name_ = internPhaseName("recompute");
  optimizer_name_ = internPhaseName("optimizer");
  live_.trackWindow(window.last_events > 0);
}

TraceWriter::~TraceWriter() {
  if (!finished_) (void)finish("crashed", "the writer was destroyed before the recording finished");
}

void TraceWriter::addQueue(RecordQueue* queue) { queues_.push_back(queue); }

void TraceWriter::start(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] { run(interval); });
}

void TraceWriter::run(std::chrono::milliseconds interval) {
  while (!stopping_.load()) {
    wakeup_.sleep(interval, [this] { return stopping_.load(); });
    if (stopping_.load()) break;
    flushOnce(false);
  }
}

Status TraceWriter::finish(const std::string& incomplete_reason, const std::string& detail) {
  if (finished_) return error_.empty() ? Status(Ok{}) : Status(Error{error_});
  stopping_.store(true);
  wakeup_.wake();
  if (thread_.joinable()) thread_.join();
  flushOnce(true);
  finished_ = true;
  // Phases still open when the recording stopped end at the last moment seen.
  const int64_t last = last_t_ == INT64_MIN ? 0 : last_t_;
  for (uint32_t id : phase_stack_) {
    phases_[id].end_ns = std::max(last, phases_[id].begin_ns);
    dirty_phases_.push_back(id);
  }
  for (PhaseInfo& p : phases_) p.ended = true;
  phase_stack_.clear();
  // So do the modules' calls.
  for (auto& [thread, calls] : open_calls_)
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) closeCall(*it, last);
  open_calls_.clear();
  // Categories that waited for their blocks' end reach their rows.
  live_.settle(updates_);
  if (!failed_.load()) {
    if (Status st = writeBatch(INT64_MAX); !st) fail(st.error().message, file_->lastErrno());
  }
  if (!failed_.load() && window_.options().last_events > 0) {
    Status st = slideWindow(true);
    if (st) st = file_->renumberEventsFrom(window_.firstSeq());
    if (!st) fail(st.error().message, file_->lastErrno());
  }
  if (!failed_.load())
    if (Status st = writeSummary(); !st) fail(st.error().message, file_->lastErrno());
  std::string reason = incomplete_reason, why = detail;
  if (failed_.load()) {
    // The reason a full disk gives, recorded if the disk still takes this much.
    const std::string full = diskFullReason(error_errno_.load());
    reason = full.empty() ? "write error" : full;
    why = error();
  }
  if (Status st = file_->finish(reason, why); !st) fail(st.error().message, file_->lastErrno());
  std::lock_guard<std::mutex> lock(mutex_);
  return error_.empty() ? Status(Ok{}) : Status(Error{error_});
}

void TraceWriter::definePhase(uint32_t id, std::string name, uint16_t run, PhaseKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_phases_[id] = {std::move(name), run, kind};
}

void TraceWriter::defineModule(uint32_t id, Module module) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_modules_[id] = std::move(module);
}

void TraceWriter::defineRun(uint16_t id, Run run) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_runs_[id] = std::move(run);
}

void TraceWriter::setMeta(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_meta_[key] = value;
}

void TraceWriter::addKernels(std::vector<KernelInterval> kernels, std::vector<std::pair<uint32_t, std::string>> names) {
  if (failed_.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& n : names) pending_kernel_names_.push_back(std::move(n));
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

void TraceWriter::fail(const std::string& message, int error_number) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_.empty()) return;
    // SQLite says "disk I/O error" for EFBIG and EDQUOT: the system's words say which.
    error_ = error_number ? fmt::format("{} ({})", message, std::strerror(error_number)) : message;
  }
  error_errno_.store(error_number);
  failed_.store(true);
  file_->rollbackBatch();
  if (on_failure_) on_failure_();
}

uint32_t TraceWriter::internPhaseName(const std::string& name) {
  auto [it, inserted] = phase_name_ids_.try_emplace(name, static_cast<uint32_t>(phase_names_.size()));
  if (inserted) phase_names_.push_back(name);
  return it->second;
}

void TraceWriter::flushOnce(bool everything) {
  if (failed_.load()) {
    // Nothing more is written: keep the queues empty so that no source waits on them.
    CaptureRecord r;
    for (RecordQueue* queue : queues_)
      while (queue->tryPop(r)) {
      }
    return;
  }
  // Records stamped before this moment are in their queues by now (see kHoldBackNs).
  const int64_t cutoff = everything ? INT64_MAX : clockNs() - kHoldBackNs;
  // The records held back last time, then each queue's: each stretch nearly in time order.
  records_.clear();
  for (auto& rec : held_back_) records_.push_back(std::move(rec));
  held_back_.clear();
  run_ends_.clear();
  run_ends_.push_back(records_.size());
  CaptureRecord r;
  for (RecordQueue* queue : queues_) {
    // At most one queue's worth per pass: the batch stays bounded while producers keep going.
    for (size_t n = queue->capacity(); n > 0 && queue->tryPop(r); --n) records_.push_back(std::move(r));
    run_ends_.push_back(records_.size());
  }
  // Time order through an index (sorting the 64-byte records themselves cost more than the
  // rest of the pass): each stretch sorted if it is not already, then merged; ties keep the
  // order they came in.
  order_.clear();
  for (size_t i = 0; i < records_.size(); ++i) order_.emplace_back(records_[i].t_ns, i);
  size_t begin = 0;
  for (size_t end : run_ends_) {
    if (!std::is_sorted(order_.begin() + begin, order_.begin() + end)) std::sort(order_.begin() + begin, order_.begin() + end);
    if (begin > 0) std::inplace_merge(order_.begin(), order_.begin() + begin, order_.begin() + end);
    begin = end;
  }
  for (const auto& [t, i] : order_) {
    if (t > cutoff) held_back_.push_back(std::move(records_[i]));
    else process(records_[i]);
  }
  const int64_t horizon = everything ? INT64_MAX : cutoff - t0_ns_;
  if (Status st = writeBatch(horizon); !st) {
    fail(st.error().message, file_->lastErrno());
    return;
  }
  if (window_.options().last_events > 0)
    if (Status st = slideWindow(false); !st) fail(st.error().message, file_->lastErrno());
}

uint32_t TraceWriter::phaseFor(int64_t t, uint16_t* run) {
  // Records in stream order are in the phase open now; a late one is looked up at its time.
  if (t >= last_t_) {
    *run = current_run_;
    return currentPhase();
  }
  return phase_index_.innermostAt(t, run, current_run_);
}

uint32_t TraceWriter::fileIdOf(uint32_t phase) {
  if (phase == kNoPhase || phase >= phases_.size() || !phases_[phase].begun) return kNoPhase;
  PhaseInfo& p = phases_[phase];
  if (p.file_id == kNoPhase) {
    // Written phases are numbered densely in the order they are first needed.
    p.file_id = next_file_phase_++;
    dirty_phases_.push_back(phase);
  }
  return p.file_id;
}

std::function<bool(uint32_t)> TraceWriter::bornInForward(uint16_t run) const {
  return [this, run](uint32_t phase) {
    return phase < phases_.size() && phases_[phase].name == forward_name_ && phases_[phase].run == run;
  };
}

void TraceWriter::openWindow(int64_t t) {
  window_.open(t);
  window_.setBaselineToTotals();
  baseline_dirty_ = true;
  window_start_ns_ = t;
  window_.setFirstSeq(next_seq_);
  // Everything alive now is the baseline; the driver's allocations are rows at the start.
  live_.startWindowAt(next_seq_, updates_);
  const std::vector<Event> driver = window_.driverRowsAt(next_seq_, t);
  for (const Event& e : driver) pushEvent(e, nullptr);
  window_.setRowsAtStart(driver.size());
}

void TraceWriter::pushEvent(const Event& e, std::shared_ptr<void> context) {
  if (context) batch_contexts_.emplace_back(batch_.size(), std::move(context));
  batch_.push(e);
  ++next_seq_;
}

void TraceWriter::process(CaptureRecord& r) {
  const int64_t t = r.t_ns - t0_ns_;
  switch (r.kind) {
    case RecordKind::Memory:
      processMemory(r, t);
      break;
    case RecordKind::Sample: {
      if (!window_.admits(t)) {
        ++outside_steps_;
        break;
      }
      Event e;
      e.t_ns = t;
      e.device = r.device;
      e.source = Source::Sample;
      e.action = Action::Sample;
      e.size = r.size;
      e.addr = r.addr;
      uint16_t run = kNoRun;
      e.phase = fileIdOf(phaseFor(t, &run));
      e.run = run;
      pushEvent(e, nullptr);
      break;
    }
    case RecordKind::PhaseBegin: {
      PendingPhase defined;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = pending_phases_.find(r.id);
        if (it == pending_phases_.end()) break;
        defined = std::move(it->second);
        pending_phases_.erase(it);
      }
      if (phases_.size() <= r.id) phases_.resize(r.id + 1);
      PhaseInfo& p = phases_[r.id];
      p.name = internPhaseName(defined.name);
      p.run = defined.run;
      p.begin_ns = p.end_ns = t;
      p.kind = defined.kind;
      p.begun = true;
      p.ended = false;
      if (window_.admits(t)) fileIdOf(r.id);
      if (p.kind == PhaseKind::Annotation) break;  // a band only: never the phase events are attributed to
      phase_stack_.push_back(r.id);
      phase_index_.begin(r.id, t, p.run);
      // What forward made and backward still needs: the activations.
      if (p.name == backward_name_) live_.markActivations(bornInForward(p.run), updates_);
      break;
    }
    case RecordKind::PhaseEnd: {
      if (r.id >= phases_.size() || !phases_[r.id].begun) break;
      PhaseInfo& p = phases_[r.id];
      p.end_ns = t;
      p.ended = true;
      if (p.file_id != kNoPhase) dirty_phases_.push_back(r.id);
      if (p.kind == PhaseKind::Annotation) break;
      phase_index_.end(r.id, t);
      if (p.name == backward_name_) live_.unmarkSurvivors(bornInForward(p.run), updates_);
      auto pos = std::find(phase_stack_.rbegin(), phase_stack_.rend(), r.id);
      if (pos != phase_stack_.rend()) phase_stack_.erase(std::next(pos).base());
      break;
    }
    case RecordKind::Tag:
      if (!live_.tag(r.device, r.addr, r.category, updates_, r.module == kNoModule ? kKeepModule : r.module))
        ++untracked_tags_;
      break;
    case RecordKind::ModuleEnter:
    case RecordKind::ModuleExit:
      processModuleCall(r, t);
      break;
    case RecordKind::RunBegin:
      current_run_ = static_cast<uint16_t>(r.id);
      dirty_runs_.push_back(current_run_);
      break;
    case RecordKind::RunEnd:
      dirty_runs_.push_back(static_cast<uint16_t>(r.id));
      current_run_ = kNoRun;
      break;
    case RecordKind::StepBegin:
      if (window_.onStepBegin(static_cast<int64_t>(r.addr), t)) openWindow(t);
      break;
  }
  last_t_ = std::max(last_t_, t);
}

void TraceWriter::processMemory(CaptureRecord& r, int64_t t) {
  const bool written = window_.admits(t);
  if (!written) ++outside_steps_;
  const uint64_t seq = written ? next_seq_ : kNoSeq;
  Event e;
  e.t_ns = t;
  e.device = r.device;
  e.source = r.source;
  e.action = r.action;
  e.addr = r.addr;
  e.size = r.size;
  e.stream = r.stream;
  uint16_t run = kNoRun;
  const uint32_t phase = phaseFor(t, &run);
  e.run = run;
  if (r.module_known) {
    e.module = r.module;
    e.pass = r.pass;
  } else if (auto open = open_calls_.find(module_thread_); open != open_calls_.end() && !open->second.empty()) {
    e.module = open->second.back().module;
    e.pass = open->second.back().pass;
  } else if (r.node_known) {
    // Made while autograd ran a node: the module whose forward made that node.
    const uint32_t m = sequences_.find(r.node_thread, r.node_seq);
    e.module = m == SequenceMap::kNone ? kNoModule : m;
    e.pass = Pass::Backward;
  }
  if (e.pass == Pass::None) e.pass = passOfPhase(phase);
  if (r.source == Source::Driver) {
    window_.onDriverEvent(e, seq);
  } else if (r.source == Source::Allocator) {
    // (Host reports are a cross-check of the allocator's own events; only those carry categories.)
    window_.onAllocatorEvent(r.device, r.action, r.size);
    switch (r.action) {
      case Action::Alloc: {
        live_.onAlloc(r.device, r.addr, r.size, seq, phase, e.module);
        // Recomputed blocks are activations brought back for backward.
        if (phase != kNoPhase && phases_[phase].name == recompute_name_) {
          live_.tag(r.device, r.addr, Category::Activation, updates_);
          e.category = Category::Activation;
        }
        break;
      }
      case Action::FreeRequested: e.category = live_.onFreeRequested(r.device, r.addr, seq, updates_); break;
      case Action::FreeCompleted: e.category = live_.onFreeCompleted(r.device, r.addr, seq, phase, updates_); break;
      default: break;
    }
  }
  if (!written) return;
  e.phase = fileIdOf(phase);
  pushEvent(e, std::move(r.context));
}

Pass TraceWriter::passOfPhase(uint32_t phase) const {
  if (phase == kNoPhase || phase >= phases_.size()) return Pass::None;
  const uint32_t name = phases_[phase].name;
  if (name == forward_name_) return Pass::Forward;
  if (name == backward_name_) return Pass::Backward;
  if (name == recompute_name_) return Pass::Recompute;
  if (name == optimizer_name_) return Pass::Optimizer;
  return Pass::None;
}

void TraceWriter::processModuleCall(const CaptureRecord& r, int64_t t) {
  if (r.module == kNoModule) return;
  module_thread_ = r.stream;
  if (r.node_known) {
    if (r.kind == RecordKind::ModuleEnter) sequences_.open(r.node_thread, r.module, r.node_seq);
    else sequences_.close(r.node_thread, r.module, r.node_seq);
  }
  std::vector<OpenCall>& calls = open_calls_[r.stream];
  if (r.kind == RecordKind::ModuleEnter) {
    const Pass pass = r.pass == Pass::None ? Pass::Forward : r.pass;
    if (pass == Pass::Backward) {
      // Backward marks (the shim's portable path) are a module's backward beginning where the
      // previous module's ends: the thread's open backward call ends here, with anything inside it.
      auto open = std::find_if(calls.rbegin(), calls.rend(), [](const OpenCall& c) { return c.pass == Pass::Backward; });
      if (open != calls.rend()) {
        const size_t keep = static_cast<size_t>(calls.rend() - open) - 1;
        for (size_t i = calls.size(); i-- > keep;) closeCall(calls[i], t);
        calls.resize(keep);
      }
    }
    calls.push_back({r.module, pass, t});
    return;
  }
  // The innermost open call of that module ends, and with it any call a missed exit left open
  // inside it.
  auto it = std::find_if(calls.rbegin(), calls.rend(), [&](const OpenCall& c) { return c.module == r.module; });
  if (it == calls.rend()) return;
  const size_t keep = static_cast<size_t>(calls.rend() - it) - 1;
  for (size_t i = calls.size(); i-- > keep;) closeCall(calls[i], t);
  calls.resize(keep);
}

void TraceWriter::closeCall(const OpenCall& call, int64_t end_ns) {
  if (window_start_ns_ != INT64_MIN && end_ns < window_start_ns_) return;  // before the file's window
  calls_.push_back(ModuleCall{call.module, call.pass, current_run_, call.begin_ns, std::max(end_ns, call.begin_ns)});
}

void TraceWriter::applyUpdates() {
  // Updates to rows of this batch change the buffer; older rows are updated in the file.
  const uint64_t batch_first = next_seq_ - batch_.size();
  std::vector<LiveBlocks::Update> to_file;
  for (const auto& u : updates_) {
    if (u.seq >= batch_first && u.seq < next_seq_) {
      const size_t row = u.seq - batch_first;
      batch_.setCategory(row, u.category);
      if (u.module != kKeepModule) batch_.setModule(row, u.module, batch_.pass(row));
    } else if (u.seq >= window_.firstSeq() && u.seq < batch_first) {
      to_file.push_back(u);
    }
  }
  updates_.swap(to_file);
}

Status TraceWriter::writeBatch(int64_t horizon_ns) {
  applyUpdates();
  const uint64_t batch_first = next_seq_ - batch_.size();
  // Stacks first: the batch's events refer to them. Each distinct context is symbolized once:
  // a program's records share a few stacks, and copying its frames per event cost 0.6 GB
  // for a 256 k-record batch (bench/results/cpu-program-ingest-2026-11-30.md).
  if (!batch_contexts_.empty() && symbolizer_) {
    constexpr size_t kMaxKnownStacks = size_t{1} << 16;
    if (known_stacks_.size() + batch_contexts_.size() > kMaxKnownStacks) known_stacks_.clear();
    std::vector<std::shared_ptr<void>> unknown;
    std::unordered_map<const void*, size_t> batch_stacks;  // the batch's own, by context
    for (const auto& [row, c] : batch_contexts_)
      if (!known_stacks_.count(c.get()) && batch_stacks.emplace(c.get(), unknown.size()).second) unknown.push_back(c);
    std::vector<uint32_t> unknown_ids(unknown.size(), kNoStack);
    if (!unknown.empty()) {
      const auto frames = symbolizer_(unknown);
      std::vector<uint32_t> ids;
      for (size_t k = 0; k < unknown.size() && k < frames.size(); ++k) {
        ids.clear();
        for (const Frame& f : frames[k]) ids.push_back(stacks_.internFrame(f.name, f.file, f.line));
        if (!ids.empty()) unknown_ids[k] = stacks_.internStack(ids);
        // use_count 2: the batch's entry and `unknown` — nobody else keeps it.
        if (unknown[k].use_count() > 2) known_stacks_.emplace(unknown[k].get(), std::make_pair(unknown[k], unknown_ids[k]));
      }
    }
    for (const auto& [row, c] : batch_contexts_) {
      auto known = known_stacks_.find(c.get());
      const uint32_t id = known != known_stacks_.end() ? known->second.second : unknown_ids[batch_stacks.at(c.get())];
      if (id != kNoStack) batch_.setStack(row, id);
    }
  }
  batch_contexts_.clear();

  std::map<uint16_t, Run> runs;
  std::map<std::string, std::string> meta;
  std::vector<std::pair<uint32_t, std::string>> kernel_names;
  std::map<uint32_t, Module> modules;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    modules.swap(pending_modules_);
    for (uint16_t id : dirty_runs_)
      if (auto it = pending_runs_.find(id); it != pending_runs_.end()) runs[id] = it->second;
    meta.swap(pending_meta_);
    kernel_names.swap(pending_kernel_names_);
    for (auto& k : pending_kernels_) waiting_kernels_.push_back(k);
    pending_kernels_.clear();
  }
  // Kernels wait until the record stream has passed their start: their phase is known then.
  std::vector<KernelInterval> kernels;
  std::vector<KernelInterval> still_waiting;
  for (KernelInterval& k : waiting_kernels_) {
    if (k.begin_ns > horizon_ns) {
      still_waiting.push_back(k);
      continue;
    }
    if (!window_.admits(k.begin_ns)) continue;
    (void)phase_index_.innermostAt(k.begin_ns, &k.run, current_run_);
    kernels.push_back(k);
  }
  waiting_kernels_.swap(still_waiting);
  if (horizon_ns != INT64_MAX) phase_index_.forgetEndedBefore(horizon_ns - kPhaseMemoryNs);

  std::vector<std::tuple<uint32_t, Phase, bool>> phases;  // file id, phase, still open
  std::sort(dirty_phases_.begin(), dirty_phases_.end());
  dirty_phases_.erase(std::unique(dirty_phases_.begin(), dirty_phases_.end()), dirty_phases_.end());
  for (uint32_t id : dirty_phases_) {
    const PhaseInfo& p = phases_[id];
    if (p.file_id == kNoPhase) continue;
    Phase out;
    out.name = phase_names_[p.name];
    out.kind = p.kind;
    out.run = p.run;
    out.begin_ns = p.begin_ns;
    out.end_ns = p.end_ns;
    phases.emplace_back(p.file_id, std::move(out), !p.ended);
  }
  dirty_phases_.clear();
  dirty_runs_.clear();
  // In the file's ids' order (the order they were first needed), not ours: a reader of the batch
  // (the summaries) sees each phase arrive no earlier than those numbered before it.
  std::sort(phases.begin(), phases.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });

  const bool nothing = batch_.empty() && updates_.empty() && phases.empty() && runs.empty() && meta.empty() &&
                       kernels.empty() && kernel_names.empty() && stacks_.frameCount() == frames_written_ &&
                       !baseline_dirty_ && modules.empty() && calls_.empty();
  if (nothing) return Ok{};
  if (Status st = file_->beginBatch(); !st) return st;
  if (baseline_dirty_)
    if (Status st = writeBaseline(); !st) return st;
  if (Status st = file_->writeStacks(stacks_, frames_written_, stacks_written_); !st) return st;
  for (const auto& [id, run] : runs)
    if (Status st = file_->writeRun(id, run); !st) return st;
  for (const auto& [id, p, open] : phases)
    if (Status st = file_->writePhase(id, p, open); !st) return st;
  for (const auto& [k, v] : meta)
    if (Status st = file_->setMeta(k, v); !st) return st;
  for (const auto& [id, name] : kernel_names)
    if (Status st = file_->writeKernelName(id, name); !st) return st;
  if (Status st = file_->appendKernels(kernels); !st) return st;
  for (const auto& [id, m] : modules)
    if (Status st = file_->writeModule(id, m); !st) return st;
  if (Status st = file_->appendModuleCalls(calls_); !st) return st;
  if (Status st = file_->appendEventsAt(batch_, 0, batch_.size(), batch_first); !st) return st;
  for (const auto& u : updates_) {
    if (Status st = file_->updateCategory(u.seq, u.category); !st) return st;
    if (u.module != kKeepModule)
      if (Status st = file_->updateModule(u.seq, u.module); !st) return st;
  }
  if (Status st = file_->commitBatch(); !st) return st;

  frames_written_ = stacks_.frameCount();
  stacks_written_ = stacks_.stackCount();
  baseline_dirty_ = false;
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.outside_steps = outside_steps_;
  stats_.untracked_tags = untracked_tags_;
  stats_.events += batch_.size();
  stats_.category_updates += updates_.size();
  stats_.kernels += kernels.size();
  ++stats_.batches;
  updates_.clear();
  calls_.clear();
  batch_.clear();
  return Ok{};
}

Status TraceWriter::slideWindow(bool exact) {
  const uint64_t keep = window_.options().last_events;
  const uint64_t first = window_.firstSeq();
  const uint64_t rows = next_seq_ - first;
  if (rows <= keep) return Ok{};
  if (!exact && rows - keep < std::max(keep / 4, kMinWindowSlack)) return Ok{};
  uint64_t cut = next_seq_ - keep;
  // The driver allocations alive at the cut become rows just before it (seq numbers the deleted
  // rows leave free).
  auto t_cut = file_->eventTime(cut);
  if (!t_cut) return t_cut.error();
  std::vector<Event> driver = window_.driverRowsAt(cut, *t_cut);
  if (cut < first + driver.size()) return Ok{};  // too few rows go to make room (a tiny window)
  auto removed = file_->allocatorNet(first, cut);
  if (!removed) return removed.error();
  window_.addToBaseline(*removed);
  std::vector<LiveBlocks::Update> updates;
  live_.startWindowAt(cut, updates);

  if (Status st = file_->beginBatch(); !st) return st;
  if (Status st = file_->deleteEventsBefore(cut); !st) return st;
  EventStore rows_at_start;
  for (const Event& e : driver) rows_at_start.push(e);
  const uint64_t new_first = cut - driver.size();
  if (Status st = file_->appendEventsAt(rows_at_start, 0, rows_at_start.size(), new_first); !st) return st;
  for (const auto& u : updates)
    if (Status st = file_->updateCategory(u.seq, u.category); !st) return st;
  if (Status st = file_->deleteKernelsEndingBefore(*t_cut); !st) return st;
  if (Status st = writeBaseline(); !st) return st;
  window_.addDiscarded(cut - first - window_.rowsAtStart());
  if (Status st = file_->setMeta("window.events_discarded", std::to_string(window_.discarded())); !st) return st;
  // A reader following the file that had not read up to the cut lost rows (live_tail.h).
  if (Status st = file_->setMeta("window.first_kept_seq", std::to_string(cut)); !st) return st;
  if (Status st = file_->commitBatch(); !st) return st;
  window_.setFirstSeq(new_first);
  window_.setRowsAtStart(driver.size());
  window_start_ns_ = *t_cut;
  return Ok{};
}

Status TraceWriter::writeSummary() {
  const WindowOptions& w = window_.options();
  std::vector<std::pair<std::string, std::string>> meta = {
      {"capture.events_written", std::to_string(next_seq_)},
      {"capture.untracked_tags", std::to_string(untracked_tags_)},
  };
  if (w.last_events > 0) {
    meta.emplace_back("window.last_events", std::to_string(w.last_events));
    meta.emplace_back("window.events_discarded", std::to_string(window_.discarded()));
  }
  if (w.stepsLimited()) {
    meta.emplace_back("window.steps", fmt::format("{}:{}", w.first_step,
                                                  w.end_step == INT64_MAX ? std::string() : std::to_string(w.end_step)));
    meta.emplace_back("window.steps_run", std::to_string(window_.steps()));
    meta.emplace_back("window.records_outside_steps", std::to_string(outside_steps_));
  }
  if (window_start_ns_ != INT64_MIN) meta.emplace_back("window.start_ns", std::to_string(window_start_ns_));
  for (const auto& [k, v] : meta)
    if (Status st = file_->setMeta(k, v); !st) return st;
  return Ok{};
}

Status TraceWriter::writeBaseline() {
  for (const auto& [device, b] : window_.baseline()) {
    DeviceInfo d;
    d.device = device;
    d.baseline_allocated = b.allocated;
    d.baseline_reserved = b.reserved;
    if (Status st = file_->writeDevice(d); !st) return st;
  }
  return Ok{};
}

}  // namespace sawtooth::capture
