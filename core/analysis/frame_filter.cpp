#include "core/analysis/frame_filter.h"

#include <array>
#include <string_view>

#include "core/analysis/call_sites.h"

namespace sawtooth {
namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool isMachinery(const FrameView& f) {
  static constexpr std::array<std::string_view, 9> prefixes = {
      "torch::unwind", "torch::CapturedTraceback", "torch::cuda::", "c10::cuda::CUDACachingAllocator",
      "_Py",           "Py",                       "__libc",        "_start",
      "c10::impl::wrap_kernel_functor"};
  if (f.name == "??" || f.name.empty()) return true;
  for (std::string_view p : prefixes)
    if (std::string_view(f.name).substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace

bool isRecorderFrame(const FrameView& f) {
  return f.file.starts_with("sawtooth_shim/") || f.file.find("/sawtooth_shim/") != std::string_view::npos ||
         endsWith(f.file, "/sawtooth/python/sitecustomize.py");
}

std::vector<uint32_t> interestingFrames(const StackTable& stacks, uint32_t stack, size_t max_frames) {
  std::vector<uint32_t> out;
  const auto frames = stacks.stack(stack);
  for (uint32_t id : frames)
    if (out.size() < max_frames && endsWith(stacks.frame(id).file, ".py") && !isRecorderFrame(stacks.frame(id)))
      out.push_back(id);
  if (!out.empty()) return out;
  for (uint32_t id : frames)
    if (out.size() < max_frames && !isMachinery(stacks.frame(id)) && !isRecorderFrame(stacks.frame(id)))
      out.push_back(id);
  return out;
}

std::vector<uint32_t> userFirstFrames(const StackTable& stacks, uint32_t stack, size_t max_frames) {
  const auto all = interestingFrames(stacks, stack, stacks.stack(stack).size());
  std::vector<uint32_t> out;
  for (uint32_t id : all)
    if (out.size() < max_frames && isUserFrame(stacks.frame(id))) out.push_back(id);
  for (uint32_t id : all)
    if (out.size() < max_frames && !isUserFrame(stacks.frame(id))) out.push_back(id);
  return out;
}

std::string frameLocation(const Frame& frame) { return frameLocation(FrameView{frame.name, frame.file, frame.line}); }

std::string frameLocation(const FrameView& frame) {
  if (frame.file.empty() || frame.file == "??") return {};
  const size_t slash = frame.file.find_last_of('/');
  std::string where(slash == std::string_view::npos ? frame.file : frame.file.substr(slash + 1));
  if (frame.line > 0) where += ":" + std::to_string(frame.line);
  return where;
}

std::string topFrameText(const StackTable& stacks, uint32_t stack) {
  if (stack >= stacks.stackCount()) return {};
  const auto frames = interestingFrames(stacks, stack, 1);
  if (frames.empty()) return {};
  const FrameView f = stacks.frame(frames.front());
  const std::string where = frameLocation(f);
  return where.empty() ? std::string(f.name) : std::string(f.name) + " (" + where + ")";
}

}  // namespace sawtooth
