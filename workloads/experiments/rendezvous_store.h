#pragma once
// The rendezvous of a distributed recording: a c10d TCPStore that the launching sawtooth-record
// serves on 127.0.0.1 at a port the system picks (so two recordings never race for one) while
// its ranks run. The ranks connect to it as clients. No LibTorch types here.

#include <memory>

#include "core/util/result.h"

namespace sawtooth::workloads {

class RendezvousStore {
 public:
  static Result<std::unique_ptr<RendezvousStore>> start();
  ~RendezvousStore();
  int port() const;

 private:
  struct Impl;
  explicit RendezvousStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sawtooth::workloads
