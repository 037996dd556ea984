#pragma once
// The vocabulary of a trace: what happened (Action), who saw it (Source) and what the bytes were
// (Category). Names are the ones PyTorch's snapshot uses, so files and CLIs speak one language.

#include <cstdint>
#include <optional>
#include <string_view>

namespace sawtooth {

enum class Action : uint8_t {
  Alloc,
  FreeRequested,
  FreeCompleted,
  SegmentAlloc,
  SegmentFree,
  SegmentMap,
  SegmentUnmap,
  Oom,       // size = requested bytes; addr = bytes free on the device at that moment
  Snapshot,
  Sample,    // a sampled counter: size = device bytes in use (cudaMemGetInfo), addr = device total
};
inline constexpr int kActionCount = 10;

enum class Source : uint8_t {
  Allocator,  // the caching allocator's own trace
  Driver,     // CUDA driver allocations seen by CUPTI
  Host,       // c10 memory reporting (CPU allocations, or CUDA as a cross-check)
  Sample,     // periodic samples
};
inline constexpr int kSourceCount = 4;

enum class Category : uint8_t {
  Unknown,
  Parameter,
  Gradient,
  OptimizerState,
  Input,
  Activation,
  Temporary,
  AutogradDetail,  // torch.profiler's AUTOGRAD_DETAIL: what backward makes besides gradients
};
inline constexpr int kCategoryCount = 8;

std::string_view name(Action action);
std::string_view name(Source source);
std::string_view name(Category category);

std::optional<Action> parseAction(std::string_view text);
std::optional<Source> parseSource(std::string_view text);
std::optional<Category> parseCategory(std::string_view text);

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
