#include "core/model/event_store.h"

namespace sawtooth {
void EventStore::reserve(size_t n) {
  t_ns_.reserve(n);
  device_.reserve(n);
  source_.reserve(n);
  action_.reserve(n);
  addr_.reserve(n);
  size_.reserve(n);
  stream_.reserve(n);
  category_.reserve(n);
  phase_.reserve(n);
  stack_.reserve(n);
  run_.reserve(n);
  if (modules_enabled_) {
    module_.reserve(n);
    pass_.reserve(n);
  }
}

void EventStore::shrinkToFit() {
  t_ns_.shrink_to_fit();
  device_.shrink_to_fit();
  source_.shrink_to_fit();
  action_.shrink_to_fit();
  addr_.shrink_to_fit();
  size_.shrink_to_fit();
  stream_.shrink_to_fit();
  category_.shrink_to_fit();
  phase_.shrink_to_fit();
  stack_.shrink_to_fit();
  run_.shrink_to_fit();
  module_.shrink_to_fit();
  pass_.shrink_to_fit();
}

void EventStore::clear() { *this = EventStore(); }

void EventStore::resize(size_t n) {
  t_ns_.resize(n);
  device_.resize(n);
  source_.resize(n);
  action_.resize(n);
  addr_.resize(n);
  size_.resize(n);
  stream_.resize(n);
  category_.resize(n);
  phase_.resize(n);
  stack_.resize(n);
  run_.resize(n);
  if (modules_enabled_) {
    module_.resize(n, kNoModule);
    pass_.resize(n, Pass::None);
  }
}

void EventStore::enableModules() {
  if (modules_enabled_) return;
  modules_enabled_ = true;
  module_.assign(size(), kNoModule);
  pass_.assign(size(), Pass::None);
}

void EventStore::setModule(size_t i, uint32_t module, Pass pass) {
  if (!modules_enabled_) {
    if (module == kNoModule && pass == Pass::None) return;
    enableModules();
  }
  module_[i] = module;
  pass_[i] = pass;
}

void EventStore::set(size_t i, const Event& e) {
  t_ns_[i] = e.t_ns;
  device_[i] = e.device;
  source_[i] = e.source;
  action_[i] = e.action;
  addr_[i] = e.addr;
  size_[i] = e.size;
  stream_[i] = e.stream;
  category_[i] = e.category;
  phase_[i] = e.phase;
  stack_[i] = e.stack;
  run_[i] = e.run;
  if (modules_enabled_) {
    module_[i] = e.module;
    pass_[i] = e.pass;
  }
}

void EventStore::push(const Event& e) {
  t_ns_.push_back(e.t_ns);
  device_.push_back(e.device);
  source_.push_back(e.source);
  action_.push_back(e.action);
  addr_.push_back(e.addr);
  size_.push_back(e.size);
  stream_.push_back(e.stream);
  category_.push_back(e.category);
  phase_.push_back(e.phase);
  stack_.push_back(e.stack);
  run_.push_back(e.run);
  if (!modules_enabled_ && (e.module != kNoModule || e.pass != Pass::None)) {
    enableModules();  // sized to the events before this one, which had none
    module_.back() = e.module;
    pass_.back() = e.pass;
  } else if (modules_enabled_) {
    module_.push_back(e.module);
    pass_.push_back(e.pass);
  }
}

Event EventStore::at(size_t i) const {
  return Event{t_ns_[i],   device_[i], source_[i], action_[i], addr_[i],  size_[i], stream_[i],
               category_[i], phase_[i], stack_[i],  run_[i],    module(i), pass(i)};
}

void EventStore::shiftTimes(int64_t delta_ns) {
  for (int64_t& t : t_ns_) t += delta_ns;
}

size_t EventStore::bytesResident() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  return bytes(t_ns_) + bytes(device_) + bytes(source_) + bytes(action_) + bytes(addr_) + bytes(size_) +
         bytes(stream_) + bytes(category_) + bytes(phase_) + bytes(stack_) + bytes(run_) + bytes(module_) + bytes(pass_);
}

}  // namespace sawtooth
