#include "workloads/experiments/rendezvous_store.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace sawtooth::workloads {

struct RendezvousStore::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
};

RendezvousStore::RendezvousStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RendezvousStore::~RendezvousStore() = default;

Result<std::unique_ptr<RendezvousStore>> RendezvousStore::start() {
  c10d::TCPStoreOptions options;
  options.port = 0;  // any free port
  options.isServer = true;
  options.waitWorkers = false;
  options.numWorkers = std::nullopt;
  auto impl = std::make_unique<Impl>();
  try {
    impl->store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  } catch (const std::exception& e) {
    return Error{std::string("cannot serve the ranks' rendezvous store on 127.0.0.1: ") + e.what()};
  }
  return std::unique_ptr<RendezvousStore>(new RendezvousStore(std::move(impl)));
}

int RendezvousStore::port() const { return impl_->store->getPort(); }

}  // namespace sawtooth::workloads
