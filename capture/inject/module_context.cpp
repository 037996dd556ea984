#include "capture/inject/module_context.h"

#include <vector>

#include <ATen/SequenceNumber.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/function.h>

namespace sawtooth::tracker {
namespace {

constexpr uint8_t kForward = 1, kBackward = 2, kRecompute = 3;  // sawtooth::Pass

struct Open {
  uint32_t module;
  uint8_t pass;
};

std::vector<Open>& openCalls() {
  thread_local std::vector<Open> calls;
  return calls;
}

}  // namespace

ModuleNow moduleNow() {
  ModuleNow now;
  const std::vector<Open>& calls = openCalls();
  if (!calls.empty()) {
    now.module = calls.back().module;
    now.pass = calls.back().pass;
    return now;
  }
  if (const auto node = torch::autograd::get_current_node()) {
    now.pass = kBackward;
    now.by_sequence = true;
    now.thread = node->thread_id();
    now.seq = node->sequence_nr();
  }
  return now;
}

uint8_t passOfCall(uint8_t asked) {
  if (asked != 0) return asked;
  return torch::autograd::get_current_node() ? kRecompute : kForward;
}

ModuleMark enterModule(uint32_t module, uint8_t pass) {
  openCalls().push_back({module, pass});
  return {at::RecordFunction::currentThreadId(), at::sequence_number::peek()};
}

bool exitModule(uint32_t module, ModuleMark& mark) {
  std::vector<Open>& calls = openCalls();
  for (size_t k = calls.size(); k-- > 0;) {
    if (calls[k].module != module) continue;
    calls.resize(k);
    mark = {at::RecordFunction::currentThreadId(), at::sequence_number::peek()};
    return true;
  }
  return false;
}

bool innermostCallIs(uint32_t module) {
  const std::vector<Open>& calls = openCalls();
  return !calls.empty() && calls.back().module == module;
}

}  // namespace sawtooth::tracker
