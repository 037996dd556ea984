#include "core/analysis/call_sites.h"

#include <fmt/format.h>

#include "core/analysis/frame_filter.h"

namespace sawtooth {
namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

constexpr std::string_view kPackageDirs[] = {"site-packages/", "dist-packages/"};

bool inPackages(std::string_view file) {
  for (std::string_view dir : kPackageDirs)
    if (file.find(dir) != std::string_view::npos) return true;
  return false;
}

// The standard library: .../lib/python3.11/x.py (not inside site-packages), or <frozen ...>.
bool inStandardLibrary(std::string_view file) {
  if (file.starts_with("<")) return true;
  const size_t lib = file.find("/lib/python");
  return lib != std::string_view::npos && !inPackages(file);
}

std::string_view directoryOf(std::string_view file) {
  const size_t slash = file.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : file.substr(0, slash + 1);
}

}  // namespace

bool isPythonFrame(FrameView f) { return endsWith(f.file, ".py"); }

bool isUserFrame(FrameView f) { return isPythonFrame(f) && !inPackages(f.file) && !inStandardLibrary(f.file); }

SiteNamer::SiteNamer(const StackTable& stacks) : stacks_(stacks) {
  none_.label = std::string(kNoStackSite);
  bool first = true;
  for (uint32_t i = 0; i < stacks.frameCount(); ++i) {
    const FrameView f = stacks.frame(i);
    if (!isUserFrame(f)) continue;
    const std::string_view dir = directoryOf(f.file);
    if (first) {
      user_prefix_ = std::string(dir);
      first = false;
      continue;
    }
    size_t common = 0;
    while (common < user_prefix_.size() && common < dir.size() && user_prefix_[common] == dir[common]) ++common;
    user_prefix_.resize(directoryOf(std::string_view(user_prefix_).substr(0, common)).size());
  }
}

std::string SiteNamer::normaliseFile(std::string_view file) const {
  for (std::string_view dir : kPackageDirs)
    if (size_t at = file.rfind(dir); at != std::string_view::npos) return std::string(file.substr(at + dir.size()));
  if (!user_prefix_.empty() && file.starts_with(user_prefix_)) return std::string(file.substr(user_prefix_.size()));
  return std::string(file);
}

uint32_t SiteNamer::siteFrame(uint32_t stack) const {
  if (stack == kNoStack || stack >= stacks_.stackCount()) return kNoFrame;
  const auto frames = stacks_.stack(stack);
  for (uint32_t id : frames)
    if (isUserFrame(stacks_.frame(id))) return id;
  const auto interesting = interestingFrames(stacks_, stack, 1);
  return interesting.empty() ? kNoFrame : interesting.front();
}

std::string SiteNamer::frameLabel(uint32_t frame) const {
  if (frame == kNoFrame || frame >= stacks_.frameCount()) return std::string(kNoStackSite);
  const FrameView f = stacks_.frame(frame);
  if (f.file.empty() || f.file == "??") return std::string(f.name);  // a C++ frame the unwinder found no file for
  return fmt::format("{}:{} {}", normaliseFile(f.file), f.line, f.name);
}

const CallSite& SiteNamer::site(uint32_t stack) {
  if (stack == kNoStack) return none_;
  auto [it, added] = cache_.try_emplace(stack);
  if (added) {
    const uint32_t frame = siteFrame(stack);
    if (frame == kNoFrame) {
      it->second = none_;
    } else {
      const FrameView f = stacks_.frame(frame);
      it->second.file = normaliseFile(f.file);
      it->second.function = f.name;
      it->second.line = f.line;
      it->second.label = frameLabel(frame);
    }
  }
  return it->second;
}

}  // namespace sawtooth
