#include "workloads/experiments/process_group.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <fmt/format.h>

// The torch wheel ships c10d's headers but not Gloo's, and ProcessGroupGloo.hpp includes them:
// CMake finds Gloo's headers (Debian's libgloo-dev) and NCCL's (the wheel's nvidia/nccl) and
// says which it found. The code behind both is in libtorch_cpu / libtorch_cuda.
#if SAWTOOTH_HAVE_GLOO_HEADERS
#define USE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if SAWTOOTH_HAVE_NCCL_HEADERS
#define USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace sawtooth::workloads {
namespace {

constexpr const char* kLoopback = "127.0.0.1";

c10::intrusive_ptr<c10d::Store> connectStore(const DistributedContext& d, std::chrono::milliseconds timeout) {
  if (d.store_port <= 0 || d.store_port > 65535)
    throw std::runtime_error(fmt::format(
        "rank {}: no rendezvous store: distributed workloads start through sawtooth-record --ranks N", d.rank));
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(d.store_port);
  options.isServer = false;
  options.waitWorkers = false;
  options.timeout = timeout;
  try {
    return c10::make_intrusive<c10d::TCPStore>(kLoopback, options);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("rank {}: cannot reach the rendezvous store on {}:{} (is the launching "
                                         "sawtooth-record still running?): {}",
                                         d.rank, kLoopback, d.store_port, e.what()));
  }
}

c10::intrusive_ptr<c10d::Backend> makeGloo([[maybe_unused]] const c10::intrusive_ptr<c10d::Store>& store,
                                           const DistributedContext& d,
                                           [[maybe_unused]] std::chrono::milliseconds timeout) {
#if SAWTOOTH_HAVE_GLOO_HEADERS
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(kLoopback));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, d.rank, d.world_size, options);
#else
  throw std::runtime_error(fmt::format("rank {}: this sawtooth-record was built without Gloo's headers, so it cannot "
                                       "run ranks on the CPU (install libgloo-dev and rebuild)",
                                       d.rank));
#endif
}

c10::intrusive_ptr<c10d::Backend> makeNccl([[maybe_unused]] const c10::intrusive_ptr<c10d::Store>& store,
                                           const DistributedContext& d,
                                           [[maybe_unused]] std::chrono::milliseconds timeout) {
#if SAWTOOTH_HAVE_NCCL_HEADERS
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, d.rank, d.world_size, options);
#else
  throw std::runtime_error(fmt::format("rank {}: this sawtooth-record was built without NCCL's headers (nccl.h from "
                                       "the torch wheel's nvidia/nccl), so it cannot run ranks on GPUs",
                                       d.rank));
#endif
}

}  // namespace

bool glooBuiltIn() { return SAWTOOTH_HAVE_GLOO_HEADERS; }
bool ncclBuiltIn() { return SAWTOOTH_HAVE_NCCL_HEADERS; }

RankGroup::RankGroup(const DistributedContext& d, bool cuda, std::chrono::milliseconds timeout)
    : backend_name_(cuda ? "nccl" : "gloo"), rank_(d.rank), size_(d.world_size) {
  if (d.world_size < 1 || d.rank < 0 || d.rank >= d.world_size)
    throw std::runtime_error(fmt::format("rank {} of world size {}: not a valid rank", d.rank, d.world_size));
  auto store = connectStore(d, timeout);
  backend_ = cuda ? makeNccl(store, d, timeout) : makeGloo(store, d, timeout);
}

RankGroup::~RankGroup() {
  // NCCL wants its communicators shut down before the process exits; Gloo's is a no-op.
  try {
    if (backend_) backend_->shutdown();
  } catch (...) {
  }
}

void RankGroup::allreduceSum(torch::Tensor& tensor) {
  std::vector<at::Tensor> tensors{tensor};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp(c10d::ReduceOp::SUM);
  backend_->allreduce(tensors, options)->wait();
}

void RankGroup::broadcast(torch::Tensor& tensor, int root) {
  std::vector<at::Tensor> tensors{tensor};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  options.rootTensor = 0;
  backend_->broadcast(tensors, options)->wait();
}

}  // namespace sawtooth::workloads
