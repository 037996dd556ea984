#include "capture/torch/capture_session.h"

#include <fmt/format.h>
#include <mutex>

#include <c10/cuda/CUDACachingAllocator.h>
#include <ATen/SequenceNumber.h>
#include <ATen/record_function.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/autograd/function.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include "core/io/file_bytes.h"
#include "capture/torch/cupti_collector.h"
#include "capture/torch/device_sampler.h"
#include "capture/writer/trace_writer.h"
#include "core/model/meta_keys.h"

namespace sawtooth::capture {
namespace {

// Queue capacities (records; a record is 80 bytes, a queue cell 88): the allocator's and the
// host reports' queues hold 262,144 records each (22 MiB), twenty times what the writer drains in
// one 25 ms batch at 0.5 M records/s; CUPTI's driver records are rare (16,384, 1.4 MiB); markers
// (phases, steps, tags, samples, module calls) 65,536 (5.5 MiB). 51 MiB in all, allocated once at
// the start.
constexpr size_t kAllocatorQueue = 1 << 18;
constexpr size_t kHostQueue = 1 << 18;
constexpr size_t kDriverQueue = 1 << 14;
constexpr size_t kMarkerQueue = 1 << 16;

}  // namespace

struct CaptureSession::Impl {
  SessionOptions options;
  int64_t t0 = 0;
  LiveCounters counters;
  RecordQueue allocator_queue{kAllocatorQueue};
  RecordQueue host_queue{kHostQueue};
  RecordQueue driver_queue{kDriverQueue};
  RecordQueue marker_queue{kMarkerQueue};
  QueueCounters allocator_counts, host_counts, driver_counts, marker_counts;
  std::atomic<bool> recording{true};  // off after step B and after a failed write
  std::unique_ptr<TraceWriter> writer;
  std::shared_ptr<void> reporter_guard;
  CuptiCollector* cupti = nullptr;
  std::string cupti_status = "off";
  std::string final_summary;
  std::unique_ptr<DeviceSampler> sampler;
  bool tracker_on = false;
  // How the writer failed, kept when it is gone.
  bool write_failed = false;
  std::string write_error;
  int write_errno = 0;

  std::mutex run_mutex;  // workload thread only, but runs are also read by sourcesSummary
  uint16_t next_run = 0;
  int open_run = -1;
  Run run;
  uint32_t next_phase = 0;
  uint32_t next_module = 0;
  std::vector<uint32_t> open_phases;

  void pushMarker(CaptureRecord r) {
    r.t_ns = clockNs();
    pushOrDrop(marker_queue, r, writer ? writer->wakeup() : nullptr, marker_counts);
  }
  size_t queueBytes() const {
    return allocator_queue.bytes() + host_queue.bytes() + driver_queue.bytes() + marker_queue.bytes();
  }
  uint64_t dropped() const {
    uint64_t n = allocator_counts.dropped + host_counts.dropped + driver_counts.dropped + marker_counts.dropped;
    if (cupti) n += cupti->stats().dropped;
    return n;
  }
};

CaptureSession::CaptureSession(std::unique_ptr<Impl> impl, SessionOptions options)
    : impl_(std::move(impl)), options_(std::move(options)) {}

CaptureSession::~CaptureSession() {
  if (impl_ && impl_->writer) (void)finish("crashed", "the recorder stopped without closing the recording");
}

Result<std::unique_ptr<CaptureSession>> CaptureSession::start(const SessionOptions& options, OutputClaim output) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  auto file = NativeWriter::create(std::move(output), NativeWriterOptions{.recording = true});
  if (!file) return file.error();
  impl->t0 = clockNs();
  impl->writer = std::make_unique<TraceWriter>(std::move(*file), impl->t0, options.window);
  WriterWakeup* wakeup = impl->writer->wakeup();

  // CUPTI first, before this process' first CUDA allocation, so that the driver series sees
  // every cudaMalloc the run makes.
  if (options.cuda && options.cupti) {
    CuptiSinks sinks;
    sinks.memory_queue = &impl->driver_queue;
    sinks.memory_counters = &impl->driver_counts;
    sinks.wakeup = wakeup;
    sinks.recording = &impl->recording;
    sinks.kernels = [raw = impl.get()](std::vector<KernelInterval> kernels,
                                       std::vector<std::pair<uint32_t, std::string>> names) {
      if (raw->writer) raw->writer->addKernels(std::move(kernels), std::move(names));
    };
    auto cupti = CuptiCollector::start(std::move(sinks), options.cupti_kernels);
    if (cupti) {
      impl->cupti = *cupti;
      impl->cupti_status = "on (CUPTI " + impl->cupti->version() + ")";
    } else {
      impl->cupti_status = "unavailable: " + cupti.error().message;
    }
  }
  if (options.cuda) {
    // Bring up the context and the caching allocator, then hand back what that took, so that
    // the recording starts from an empty allocator.
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(options.cuda_device));
    { auto warm = torch::empty({1}, torch::TensorOptions().device(torch::kCUDA, options.cuda_device)); }
    c10::cuda::CUDACachingAllocator::emptyCache();
  }

  Impl* raw = impl.get();
  impl->writer->addQueue(&impl->marker_queue);
  impl->writer->addQueue(&impl->allocator_queue);
  impl->writer->addQueue(&impl->host_queue);
  impl->writer->addQueue(&impl->driver_queue);
  // A failed write (a full disk) stops the sources at once; the workload stops at its next step.
  impl->writer->onWriteFailure([raw] {
    raw->recording.store(false);
    if (raw->options.stop_on_write_failure) raw->options.stop_on_write_failure->store(true);
  });
  if (options.stacks == StackMode::Cpp) impl->writer->setSymbolizer(symbolizeStacks);
  impl->writer->setMeta("t0_clock_ns", std::to_string(impl->t0));
  impl->writer->setMeta("capture.queue_bytes", std::to_string(impl->queueBytes()));
  impl->writer->start(std::chrono::milliseconds(options.batch_interval_ms));

  if (options.cuda && options.allocator_tracker) {
    startAllocatorTracker(SourceSink{&impl->allocator_queue, &impl->counters, &impl->allocator_counts, wakeup,
                                     &impl->recording},
                          options.stacks);
    impl->tracker_on = true;
  }
  if (options.memory_reporter)
    impl->reporter_guard = installMemoryReporter(
        SourceSink{&impl->host_queue, &impl->counters, &impl->host_counts, wakeup, &impl->recording});
  if (options.cuda && options.sampler) {
    impl->sampler = std::make_unique<DeviceSampler>(&impl->marker_queue, &impl->marker_counts, wakeup, options.cuda_device);
    impl->sampler->start(std::chrono::milliseconds(options.sample_interval_ms));
  }
  return std::unique_ptr<CaptureSession>(new CaptureSession(std::move(impl), options));
}

uint16_t CaptureSession::beginRun(const std::string& name, const std::string& workload,
                                  std::vector<std::pair<std::string, std::string>> config) {
  std::lock_guard<std::mutex> lock(impl_->run_mutex);
  const uint16_t id = impl_->next_run++;
  impl_->open_run = id;
  impl_->run = Run{name, workload, std::move(config), {}};
  impl_->writer->defineRun(id, impl_->run);
  CaptureRecord r;
  r.kind = RecordKind::RunBegin;
  r.id = id;
  impl_->pushMarker(r);
  return id;
}

void CaptureSession::addMeasurements(std::vector<Measurement> measurements) {
  std::lock_guard<std::mutex> lock(impl_->run_mutex);
  if (impl_->open_run < 0) return;
  for (auto& m : measurements) impl_->run.measurements.push_back(std::move(m));
  impl_->writer->defineRun(static_cast<uint16_t>(impl_->open_run), impl_->run);
}

void CaptureSession::endRun(std::vector<Measurement> measurements) {
  addMeasurements(std::move(measurements));
  std::lock_guard<std::mutex> lock(impl_->run_mutex);
  if (impl_->open_run < 0) return;
  CaptureRecord r;
  r.kind = RecordKind::RunEnd;
  r.id = static_cast<uint32_t>(impl_->open_run);
  impl_->pushMarker(r);
  impl_->open_run = -1;
}

void CaptureSession::beginStep() {
  const int64_t step = next_step_++;
  const WindowOptions& w = options_.window;
  // The driver records made before the window opens reach the writer before its marker.
  if (step == w.first_step && w.first_step > 0 && impl_->cupti) impl_->cupti->flushAll();
  CaptureRecord r;
  r.kind = RecordKind::StepBegin;
  r.addr = static_cast<uint64_t>(step);
  impl_->pushMarker(r);
  // After the window nothing more is written: the sources only keep the peak counters.
  if (step == w.end_step) impl_->recording.store(false);
}

void CaptureSession::beginPhase(const std::string& name) {
  sampleDevice();
  const uint32_t id = impl_->next_phase++;
  impl_->writer->definePhase(id, name, impl_->open_run < 0 ? kNoRun : static_cast<uint16_t>(impl_->open_run));
  impl_->open_phases.push_back(id);
  CaptureRecord r;
  r.kind = RecordKind::PhaseBegin;
  r.id = id;
  impl_->pushMarker(r);
}

void CaptureSession::endPhase() {
  if (impl_->open_phases.empty()) return;
  CaptureRecord r;
  r.kind = RecordKind::PhaseEnd;
  r.id = impl_->open_phases.back();
  impl_->open_phases.pop_back();
  impl_->pushMarker(r);
  sampleDevice();
}

void CaptureSession::tag(const void* data, int16_t device, Category category, uint32_t module) {
  CaptureRecord r;
  r.kind = RecordKind::Tag;
  r.addr = reinterpret_cast<uint64_t>(data);
  r.device = device;
  r.category = category;
  r.module = module;
  impl_->pushMarker(r);
}

uint32_t CaptureSession::defineModule(Module module) {
  const uint32_t id = impl_->next_module++;
  impl_->writer->defineModule(id, std::move(module));
  return id;
}

namespace {

CaptureRecord moduleMark(RecordKind kind, uint32_t module) {
  CaptureRecord r;
  r.kind = kind;
  r.module = module;
  const uint64_t thread = at::RecordFunction::currentThreadId();
  r.stream = thread;
  r.node_known = true;
  r.node_thread = static_cast<uint32_t>(thread);
  r.node_seq = at::sequence_number::peek();
  return r;
}

}  // namespace

void CaptureSession::enterModule(uint32_t module) {
  CaptureRecord r = moduleMark(RecordKind::ModuleEnter, module);
  // A forward run while autograd runs a node is a checkpointed block's recomputation.
  r.pass = torch::autograd::get_current_node() ? Pass::Recompute : Pass::Forward;
  impl_->pushMarker(r);
}

void CaptureSession::exitModule(uint32_t module) { impl_->pushMarker(moduleMark(RecordKind::ModuleExit, module)); }

void CaptureSession::sampleDevice() {
  if (impl_->sampler) impl_->sampler->requestSample();
}

void CaptureSession::resetPeaks() { impl_->counters.resetPeaks(); }
int64_t CaptureSession::peakAllocated(int16_t device) const { return impl_->counters.peak(device); }
int64_t CaptureSession::currentAllocated(int16_t device) const { return impl_->counters.current(device); }

void CaptureSession::setMeta(const std::string& key, const std::string& value) { impl_->writer->setMeta(key, value); }

bool CaptureSession::writeFailed() const { return impl_->writer ? impl_->writer->failed() : impl_->write_failed; }
std::string CaptureSession::writeError() const { return impl_->writer ? impl_->writer->error() : impl_->write_error; }
int CaptureSession::writeErrno() const { return impl_->writer ? impl_->writer->errorNumber() : impl_->write_errno; }

std::string CaptureSession::sourcesSummary() const {
  const Impl& i = *impl_;
  if (!i.final_summary.empty()) return i.final_summary;
  auto counts = [](const QueueCounters& c, const char* unit) {
    return fmt::format("{} {}, {} dropped", c.pushed.load() + c.dropped.load(), unit, c.dropped.load());
  };
  std::string s = "allocator tracker: " + (i.tracker_on ? counts(i.allocator_counts, "events") : std::string("off"));
  s += "; memory reporting: " + (i.reporter_guard ? counts(i.host_counts, "reports") : std::string("off"));
  if (i.cupti) {
    const CuptiStats c = i.cupti->stats();
    s += fmt::format("; CUPTI: {} memory, {} pool, {} kernel records, {} dropped", c.memory_records, c.pool_records,
                     c.kernel_records, c.dropped + i.driver_counts.dropped.load());
  } else {
    s += "; CUPTI: " + i.cupti_status;
  }
  s += fmt::format("; device samples: {}", i.sampler ? std::to_string(i.sampler->samples()) : std::string("off"));
  return s;
}

Status CaptureSession::finish(const std::string& incomplete_reason, const std::string& detail) {
  Impl& i = *impl_;
  if (!i.writer) return Ok{};
  while (!i.open_phases.empty()) endPhase();
  if (i.sampler) i.sampler->stop();
  if (i.options.stacks == StackMode::Cpp && i.tracker_on && !i.writer->failed()) {
    // PyTorch's own snapshot of the same recording, with its stacks, beside the trace.
    const std::string pickle = allocatorSnapshotPickle();
    const std::string path = i.writer->path() + ".snapshot.pickle";
    if (writeFileBytes(path, pickle).ok()) i.writer->setMeta("pytorch_snapshot", path);
  }
  if (i.tracker_on) stopAllocatorTracker();
  if (i.cupti) i.cupti->stop();  // flushes every buffer: the counts below are final
  const std::string summary = sourcesSummary();
  i.reporter_guard.reset();
  if (i.cupti) {
    const CuptiStats c = i.cupti->stats();
    i.writer->setMeta("cupti.memory_records", std::to_string(c.memory_records));
    i.writer->setMeta("cupti.pool_records", std::to_string(c.pool_records));
    i.writer->setMeta("cupti.kernel_records", std::to_string(c.kernel_records));
    i.writer->setMeta("cupti.dropped_records", std::to_string(c.dropped));
  }
  i.writer->setMeta("capture.cupti", i.cupti_status);
  i.writer->setMeta("capture.allocator_dropped", std::to_string(i.allocator_counts.dropped.load()));
  i.writer->setMeta("capture.host_dropped", std::to_string(i.host_counts.dropped.load()));
  i.writer->setMeta("capture.driver_dropped", std::to_string(i.driver_counts.dropped.load()));
  i.writer->setMeta("capture.marker_dropped", std::to_string(i.marker_counts.dropped.load()));
  uint64_t waited = 0, waited_ns = 0;
  for (const QueueCounters* c : {&i.allocator_counts, &i.host_counts, &i.driver_counts, &i.marker_counts}) {
    waited += c->waited.load();
    waited_ns += c->waited_ns.load();
  }
  i.writer->setMeta("capture.full_queue_waits", std::to_string(waited));
  i.writer->setMeta("capture.full_queue_wait_ms", fmt::format("{:.3f}", static_cast<double>(waited_ns) / 1e6));
  i.writer->setMeta(std::string(meta::kDroppedRecords), std::to_string(i.dropped()));
  i.writer->setMeta("capture.sources", summary);
  i.writer->setMeta("capture.steps", std::to_string(next_step_));
  Status st = i.writer->finish(incomplete_reason, detail);
  i.write_failed = i.writer->failed();
  i.write_error = i.writer->error();
  i.write_errno = i.writer->errorNumber();
  i.writer.reset();
  i.final_summary = summary;
  return st;
}

}  // namespace sawtooth::capture
