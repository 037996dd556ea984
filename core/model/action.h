#pragma once
// The vocabulary of a trace: what happened (Action), who saw it (Source) and what the bytes were
// (Category). Names are the ones PyTorch's snapshot uses, so files and CLIs speak one language.
// The values are part of the wire contract (core/recording/wire.h) and of the .sawtooth file:
// never renumber, only add.

#include <cstdint>
#include <optional>
#include <string_view>

namespace sawtooth {

enum class Action : uint8_t {
  Alloc = 0,
  FreeRequested = 1,
  FreeCompleted = 2,
  SegmentAlloc = 3,
  SegmentFree = 4,
  SegmentMap = 5,
  SegmentUnmap = 6,
  Oom = 7,       // size = requested bytes; addr = bytes free on the device at that moment
  Snapshot = 8,
  Sample = 9,    // a sampled counter: size = device bytes in use (cudaMemGetInfo), addr = device total
};
inline constexpr int kActionCount = 10;

enum class Source : uint8_t {
  Allocator = 0,  // the caching allocator's own trace
  Driver = 1,     // CUDA driver allocations seen by CUPTI
  Host = 2,       // c10 memory reporting (CPU allocations, or CUDA as a cross-check)
  Sample = 3,     // periodic samples
};
inline constexpr int kSourceCount = 4;

enum class Category : uint8_t {
  Unknown = 0,
  Parameter = 1,
  Gradient = 2,
  OptimizerState = 3,
  Input = 4,
  Activation = 5,
  Temporary = 6,
  AutogradDetail = 7,  // torch.profiler's AUTOGRAD_DETAIL: what backward makes besides gradients
};
inline constexpr int kCategoryCount = 8;

// Which pass of a training step made an event, on whichever thread made it (model/module_tree.h).
enum class Pass : uint8_t {
  None = 0,       // outside any pass the recorder tracks
  Forward = 1,
  Backward = 2,   // autograd running the module's backward
  Recompute = 3,  // activation checkpointing running a forward again during backward
  Optimizer = 4,  // optimizer.step()
};
inline constexpr int kPassCount = 5;

std::string_view name(Action action);
std::string_view name(Source source);
std::string_view name(Category category);
std::string_view name(Pass pass);

std::optional<Action> parseAction(std::string_view text);
std::optional<Source> parseSource(std::string_view text);
std::optional<Category> parseCategory(std::string_view text);
std::optional<Pass> parsePass(std::string_view text);

// Signed effect of an allocator event on the allocated and reserved series (inline: every pass
// over millions of events asks).
inline int allocatedSign(Action action) {
  switch (action) {
    case Action::Alloc: return 1;
    case Action::FreeCompleted: return -1;
    default: return 0;
  }
}
inline int reservedSign(Action action) {
  switch (action) {
    case Action::SegmentAlloc:
    case Action::SegmentMap: return 1;
    case Action::SegmentFree:
    case Action::SegmentUnmap: return -1;
    default: return 0;
  }
}

}  // namespace sawtooth
