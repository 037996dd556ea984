#pragma once
// A small trace of a three-layer net with its modules, for the module tests: every number in
// module_memory_test.cpp follows from the events below by hand.
//
//   module 0 Net (root), 1 "0" Linear, 2 "1" ReLU, 3 "2" Linear; the loss is outside modules.
//   allocated: 400 600 | fwd 1600 2100 1600 1900 2000 2050 | bwd 2250 2150 1850 2250 4250 2250 1250
//   the peak, 4,250 B, is allocator event 12 (t = 68), a temporary of "0"'s backward.

#include "core/model/trace.h"

namespace sawtooth::test {

inline Trace moduleTrace() {
  Trace t;
  t.format = "sawtooth";
  t.deviceInfo(0).name = "test GPU";
  t.modules.modules = {Module{"Net", "Net", kNoModule, 0}, Module{"0", "Linear", 0, 400},
                       Module{"1", "ReLU", 0, 0}, Module{"2", "Linear", 0, 200}};
  auto call = [&](uint32_t m, Pass p, int64_t b, int64_t e) { t.modules.calls.push_back(ModuleCall{m, p, kNoRun, b, e}); };
  call(0, Pass::Forward, 10, 40);
  call(1, Pass::Forward, 11, 20);
  call(2, Pass::Forward, 21, 25);
  call(3, Pass::Forward, 26, 35);
  call(0, Pass::Backward, 50, 76);
  call(3, Pass::Backward, 50, 60);
  call(2, Pass::Backward, 61, 65);
  call(1, Pass::Backward, 66, 75);
  auto ev = [&](int64_t time, Action a, uint64_t addr, int64_t size, Category c, uint32_t module, Pass pass) {
    Event e;
    e.t_ns = time;
    e.action = a;
    e.addr = addr;
    e.size = size;
    e.category = c;
    e.module = module;
    e.pass = pass;
    t.events.push(e);
  };
  using enum Action;
  ev(0, Alloc, 0x1000, 400, Category::Parameter, 1, Pass::None);  // 0.weight
  ev(1, Alloc, 0x2000, 200, Category::Parameter, 3, Pass::None);  // 2.weight
  ev(12, Alloc, 0x3000, 1000, Category::Activation, 1, Pass::Forward);
  ev(13, Alloc, 0x4000, 500, Category::Temporary, 1, Pass::Forward);
  ev(14, FreeCompleted, 0x4000, 500, Category::Temporary, 1, Pass::Forward);
  ev(22, Alloc, 0x5000, 300, Category::Activation, 2, Pass::Forward);
  ev(27, Alloc, 0x6000, 100, Category::Activation, 3, Pass::Forward);
  ev(38, Alloc, 0x7000, 50, Category::Unknown, kNoModule, Pass::None);  // the loss
  ev(52, Alloc, 0x8000, 200, Category::Gradient, 3, Pass::Backward);
  ev(53, FreeCompleted, 0x6000, 100, Category::Activation, 3, Pass::Backward);
  ev(62, FreeCompleted, 0x5000, 300, Category::Activation, 2, Pass::Backward);
  ev(67, Alloc, 0x9000, 400, Category::Gradient, 1, Pass::Backward);
  ev(68, Alloc, 0xa000, 2000, Category::Temporary, 1, Pass::Backward);
  ev(69, FreeCompleted, 0xa000, 2000, Category::Temporary, 1, Pass::Backward);
  ev(70, FreeCompleted, 0x3000, 1000, Category::Activation, 1, Pass::Backward);
  return t;
}

}  // namespace sawtooth::test
