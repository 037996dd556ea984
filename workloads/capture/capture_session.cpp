#include "workloads/capture/capture_session.h"

#include <fmt/format.h>
#include <mutex>

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include "workloads/capture/cupti_collector.h"
#include "workloads/capture/device_sampler.h"
#include "workloads/capture/trace_writer.h"
#include "core/io/file_bytes.h"

namespace sawtooth::capture {
namespace {

constexpr size_t kQueueCapacity = 1 << 18;  // 262,144 records per source, about 25 MB

}  // namespace

struct CaptureSession::Impl {
  SessionOptions options;
  int64_t t0 = 0;
  LiveCounters counters;
  RecordQueue allocator_queue{kQueueCapacity};
  RecordQueue host_queue{kQueueCapacity};
  RecordQueue driver_queue{kQueueCapacity};
  RecordQueue marker_queue{1 << 16};
  std::atomic<uint64_t> allocator_seen{0}, allocator_dropped{0}, host_seen{0}, host_dropped{0}, marker_dropped{0};
  std::unique_ptr<TraceWriter> writer;
  std::shared_ptr<void> reporter_guard;
  CuptiCollector* cupti = nullptr;
  std::string cupti_status = "off";
  std::string final_summary;
  std::unique_ptr<DeviceSampler> sampler;
  bool tracker_on = false;

  std::mutex run_mutex;  // workload thread only, but runs are also read by sourcesSummary
  uint16_t next_run = 0;
  int open_run = -1;
  Run run;
  uint32_t next_phase = 0;
  std::vector<uint32_t> open_phases;

  void pushMarker(CaptureRecord r) {
    r.t_ns = clockNs();
    if (!marker_queue.tryPush(r)) marker_dropped.fetch_add(1);
  }
};

CaptureSession::CaptureSession(std::unique_ptr<Impl> impl, SessionOptions options)
    : impl_(std::move(impl)), options_(std::move(options)) {}

CaptureSession::~CaptureSession() {
  if (impl_ && impl_->writer) (void)finish();
}

Result<std::unique_ptr<CaptureSession>> CaptureSession::start(const SessionOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  auto file = NativeWriter::create(options.out_path);
  if (!file) return file.error();

  // CUPTI first, before this process' first CUDA allocation, so that the driver series sees
  // every cudaMalloc the run makes.
  if (options.cuda && options.cupti) {
    auto cupti = CuptiCollector::start(
        &impl->driver_queue,
        [raw = impl.get()](std::vector<KernelInterval> kernels, const std::vector<std::string>& names) {
          if (raw->writer) raw->writer->addKernels(std::move(kernels), names);
        },
        options.cupti_kernels);
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

  impl->t0 = clockNs();
  impl->writer = std::make_unique<TraceWriter>(std::move(*file), impl->t0);
  impl->writer->addQueue(&impl->marker_queue, true);
  impl->writer->addQueue(&impl->allocator_queue, true);
  impl->writer->addQueue(&impl->host_queue, true);
  impl->writer->addQueue(&impl->driver_queue, false);
  if (options.stacks == StackMode::Cpp) impl->writer->setSymbolizer(symbolizeStacks);
  impl->writer->setMeta("t0_clock_ns", std::to_string(impl->t0));
  impl->writer->start(std::chrono::milliseconds(options.batch_interval_ms));

  if (options.cuda && options.allocator_tracker) {
    startAllocatorTracker(SourceSink{&impl->allocator_queue, &impl->counters, &impl->allocator_dropped, &impl->allocator_seen},
                          options.stacks);
    impl->tracker_on = true;
  }
  if (options.memory_reporter)
    impl->reporter_guard =
        installMemoryReporter(SourceSink{&impl->host_queue, &impl->counters, &impl->host_dropped, &impl->host_seen});
  if (options.cuda && options.sampler) {
    impl->sampler = std::make_unique<DeviceSampler>(&impl->marker_queue, options.cuda_device);
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

void CaptureSession::tag(const void* data, int16_t device, Category category) {
  CaptureRecord r;
  r.kind = RecordKind::Tag;
  r.addr = reinterpret_cast<uint64_t>(data);
  r.device = device;
  r.category = category;
  impl_->pushMarker(r);
}

void CaptureSession::sampleDevice() {
  if (impl_->sampler) impl_->sampler->requestSample();
}

void CaptureSession::resetPeaks() { impl_->counters.resetPeaks(); }
int64_t CaptureSession::peakAllocated(int16_t device) const { return impl_->counters.peak(device); }
int64_t CaptureSession::currentAllocated(int16_t device) const { return impl_->counters.current(device); }

void CaptureSession::setMeta(const std::string& key, const std::string& value) { impl_->writer->setMeta(key, value); }

std::string CaptureSession::sourcesSummary() const {
  const Impl& i = *impl_;
  if (!i.final_summary.empty()) return i.final_summary;
  std::string s = fmt::format("allocator tracker: {}", i.tracker_on ? fmt::format("{} events, {} dropped", i.allocator_seen.load(),
                                                                                  i.allocator_dropped.load())
                                                                    : std::string("off"));
  s += fmt::format("; memory reporting: {}", i.reporter_guard ? fmt::format("{} reports, {} dropped", i.host_seen.load(),
                                                                            i.host_dropped.load())
                                                              : std::string("off"));
  if (i.cupti) {
    const CuptiStats c = i.cupti->stats();
    s += fmt::format("; CUPTI: {} memory, {} pool, {} kernel records, {} dropped", c.memory_records, c.pool_records,
                     c.kernel_records, c.dropped);
  } else {
    s += "; CUPTI: " + i.cupti_status;
  }
  s += fmt::format("; device samples: {}", i.sampler ? std::to_string(i.sampler->samples()) : std::string("off"));
  return s;
}

Status CaptureSession::finish() {
  Impl& i = *impl_;
  if (!i.writer) return Ok{};
  while (!i.open_phases.empty()) endPhase();
  if (i.sampler) i.sampler->stop();
  if (i.options.stacks == StackMode::Cpp && i.tracker_on) {
    // PyTorch's own snapshot of the same recording, with its stacks, beside the trace.
    const std::string pickle = allocatorSnapshotPickle();
    const std::string path = i.options.out_path + ".snapshot.pickle";
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
  i.writer->setMeta("capture.allocator_dropped", std::to_string(i.allocator_dropped.load()));
  i.writer->setMeta("capture.host_dropped", std::to_string(i.host_dropped.load()));
  i.writer->setMeta("capture.marker_dropped", std::to_string(i.marker_dropped.load()));
  i.writer->setMeta("capture.sources", summary);
  const TraceWriter::Stats ws = i.writer->stats();
  i.writer->setMeta("capture.untracked_tags", std::to_string(ws.untracked_tags));
  Status st = i.writer->finish();
  i.writer.reset();
  i.final_summary = summary;
  return st;
}

}  // namespace sawtooth::capture
