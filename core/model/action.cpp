#include "core/model/action.h"

#include <array>

namespace sawtooth {
namespace {

constexpr std::array<std::string_view, kActionCount> kActionNames = {
    "alloc",       "free_requested", "free_completed", "segment_alloc", "segment_free",
    "segment_map", "segment_unmap",  "oom",            "snapshot",      "sample"};
constexpr std::array<std::string_view, kSourceCount> kSourceNames = {"allocator", "driver", "host", "sample"};
constexpr std::array<std::string_view, kCategoryCount> kCategoryNames = {
    "unknown", "parameter", "gradient", "optimizer_state", "input", "activation", "temporary", "autograd_detail"};
constexpr std::array<std::string_view, kPassCount> kPassNames = {"none", "forward", "backward", "recompute",
                                                                "optimizer"};

template <typename Enum, size_t N>
std::optional<Enum> parseName(const std::array<std::string_view, N>& names, std::string_view text) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == text) return static_cast<Enum>(i);
  return std::nullopt;
}

}  // namespace

std::string_view name(Action action) { return kActionNames.at(static_cast<size_t>(action)); }
std::string_view name(Source source) { return kSourceNames.at(static_cast<size_t>(source)); }
std::string_view name(Category category) { return kCategoryNames.at(static_cast<size_t>(category)); }
std::string_view name(Pass pass) { return kPassNames.at(static_cast<size_t>(pass)); }

std::optional<Action> parseAction(std::string_view text) { return parseName<Action>(kActionNames, text); }
std::optional<Source> parseSource(std::string_view text) { return parseName<Source>(kSourceNames, text); }
std::optional<Category> parseCategory(std::string_view text) { return parseName<Category>(kCategoryNames, text); }
std::optional<Pass> parsePass(std::string_view text) { return parseName<Pass>(kPassNames, text); }

}  // namespace sawtooth
