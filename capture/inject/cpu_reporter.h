#pragma once
// CPU allocations through c10's memory reporting, without a profiler session (the native path on
// the CPU; cpu_native.py). c10's CPU allocator reports every allocation and free to the memory
// reporter in the thread's debug info, the slot PyTorch's profiler uses; ours sits there while the
// program's own profiler does not, states itself disabled (so that profilerEnabled() stays false,
// and no RecordFunction callback exists), and hands each report to the tracker, which stamps it
// with its module and, with stacks, its Python stack. autograd's threads, at::launch's and JIT
// continuations inherit the slot from the thread that started them, as they inherit a profiler.

#include <string>

namespace sawtooth::tracker {

// Puts the reporter on this thread. False with `error` when a profiler is already there (the
// program's own: its session sees these allocations until it stops).
bool attachCpu(std::string& error);
// Takes it off this thread. Where something was put above it since, it stays, muted.
void detachCpu();

}  // namespace sawtooth::tracker
