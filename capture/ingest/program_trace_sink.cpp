#include "capture/ingest/program_trace_sink.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "capture/writer/trace_writer.h"

namespace sawtooth::record {
namespace {

constexpr size_t kQueueCapacity = 1 << 18;
constexpr auto kBatchInterval = std::chrono::milliseconds(100);
// How long a push waits for room before the record counts as dropped.
constexpr auto kMaxWait = std::chrono::seconds(10);

std::vector<std::vector<Frame>> framesOf(const std::vector<std::shared_ptr<void>>& contexts) {
  std::vector<std::vector<Frame>> out;
  out.reserve(contexts.size());
  for (const auto& c : contexts) {
    std::vector<Frame>& frames = out.emplace_back();
    if (!c) continue;
    const auto& stack = *static_cast<const StackFrames*>(c.get());
    frames.reserve(stack.size());
    for (const FramePtr& f : stack) frames.push_back(*f);
  }
  return out;
}

}  // namespace

struct ProgramTraceSink::Impl {
  capture::RecordQueue live{kQueueCapacity};
  capture::RecordQueue driver{kQueueCapacity};
  std::unique_ptr<capture::TraceWriter> writer;
  uint32_t next_phase = 0;
  size_t kernel_names_sent = 0;  // the writer is handed each kernel name once
  int64_t t0 = 0;
};

ProgramTraceSink::ProgramTraceSink(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ProgramTraceSink::~ProgramTraceSink() {
  if (impl_ && impl_->writer) (void)finish("killed", "the recorder stopped without closing this recording");
}

Result<std::unique_ptr<ProgramTraceSink>> ProgramTraceSink::create(OutputClaim claim, int64_t t0_ns, const Run& run,
                                                                   const capture::WindowOptions& window) {
  // Before SQLite opens it: its -wal and -shm files take the database's mode.
  if (::fchmod(claim.fd(), 0600) != 0)
    return Error{fmt::format("{}: cannot make it private (mode 0600): {}", claim.path(), std::strerror(errno))};
  // A file that could not be created (a file size limit, a full disk) leaves nothing behind: not
  // SQLite's -wal and -shm, nor the half-made database. `held` keeps the claim's lock (flock: the
  // open file's) until they are gone.
  const std::string path = claim.path();
  const int held = ::dup(claim.fd());
  auto file = NativeWriter::create(std::move(claim), NativeWriterOptions{.recording = true});
  if (held >= 0) {
    if (!file)
      for (const char* suffix : {"-wal", "-shm", "-journal", ""}) ::unlink((path + suffix).c_str());
    ::close(held);
  }
  if (!file) return file.error();
  auto impl = std::make_unique<Impl>();
  impl->t0 = t0_ns;
  impl->writer = std::make_unique<capture::TraceWriter>(std::move(*file), t0_ns, window);
  impl->writer->addQueue(&impl->live);
  impl->writer->addQueue(&impl->driver);
  impl->writer->setSymbolizer(framesOf);
  impl->writer->setMeta("t0_clock_ns", std::to_string(t0_ns));
  impl->writer->defineRun(0, run);
  impl->writer->start(kBatchInterval);
  auto sink = std::unique_ptr<ProgramTraceSink>(new ProgramTraceSink(std::move(impl)));
  capture::CaptureRecord begin;
  begin.kind = capture::RecordKind::RunBegin;
  begin.t_ns = t0_ns;
  begin.id = 0;
  sink->push(std::move(begin));
  return sink;
}

bool ProgramTraceSink::pushInto(capture::BoundedQueue<capture::CaptureRecord>& queue, capture::CaptureRecord& record) {
  if (record.t_ns > last_t_) last_t_ = record.t_ns;
  if (queue.tryPush(record)) {
    dropping_ = false;
    return true;
  }
  if (!dropping_ && !failed()) {
    const auto give_up = std::chrono::steady_clock::now() + kMaxWait;
    while (std::chrono::steady_clock::now() < give_up && !failed()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (queue.tryPush(record)) return true;
    }
    dropping_ = true;
  }
  ++dropped_;
  return false;
}

void ProgramTraceSink::push(capture::CaptureRecord record) { (void)pushInto(impl_->live, record); }

void ProgramTraceSink::pushDriver(capture::CaptureRecord record) { (void)pushInto(impl_->driver, record); }

bool ProgramTraceSink::failed() const { return impl_->writer ? impl_->writer->failed() : failed_at_finish_; }

void ProgramTraceSink::addKernels(std::vector<KernelInterval> kernels, const std::vector<std::string>& names_by_id) {
  for (const auto& k : kernels)
    if (k.end_ns > last_t_) last_t_ = k.end_ns;
  std::vector<std::pair<uint32_t, std::string>> new_names;
  for (size_t id = impl_->kernel_names_sent; id < names_by_id.size(); ++id)
    new_names.emplace_back(static_cast<uint32_t>(id), names_by_id[id]);
  impl_->kernel_names_sent = std::max(impl_->kernel_names_sent, names_by_id.size());
  impl_->writer->addKernels(std::move(kernels), std::move(new_names));
}

uint32_t ProgramTraceSink::definePhase(const std::string& name, PhaseKind kind) {
  const uint32_t id = impl_->next_phase++;
  impl_->writer->definePhase(id, name, 0, kind);
  return id;
}

void ProgramTraceSink::defineModule(uint32_t id, const Module& module) { impl_->writer->defineModule(id, module); }

void ProgramTraceSink::setMeta(const std::string& key, const std::string& value) { impl_->writer->setMeta(key, value); }

uint64_t ProgramTraceSink::written() const { return impl_->writer ? impl_->writer->stats().events : 0; }

Status ProgramTraceSink::finish(const std::string& incomplete_reason, const std::string& detail) {
  if (!impl_->writer) return Ok{};
  capture::CaptureRecord end;
  end.kind = capture::RecordKind::RunEnd;
  end.t_ns = last_t_;
  end.id = 0;
  push(std::move(end));
  Status st = impl_->writer->finish(incomplete_reason, detail);
  failed_at_finish_ = impl_->writer->failed();
  if (failed_at_finish_) {
    failure_reason_ = diskFullReason(impl_->writer->errorNumber());
    if (failure_reason_.empty()) failure_reason_ = "write error";
  }
  impl_->writer.reset();
  return st;
}

}  // namespace sawtooth::record
