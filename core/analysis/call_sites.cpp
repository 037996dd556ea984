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

}  // namespace

bool isPythonFrame(FrameView f) { return endsWith(f.file, ".py"); }

bool isUserFrame(FrameView f) {
  return isPythonFrame(f) && !inPackages(f.file) && !inStandardLibrary(f.file) && !isRecorderFrame(f);
}

std::string normaliseFile(std::string_view file) {
  for (std::string_view dir : kPackageDirs)
    if (size_t at = file.rfind(dir); at != std::string_view::npos) return std::string(file.substr(at + dir.size()));
  if (file.starts_with("<")) return std::string(file);
  if (size_t lib = file.find("/lib/python"); lib != std::string_view::npos) {
    // .../lib/python3.11/runpy.py -> runpy.py
    const size_t slash = file.find('/', lib + std::string_view("/lib/python").size());
    if (slash != std::string_view::npos) return std::string(file.substr(slash + 1));
  }
  const size_t slash = file.rfind('/');
  return std::string(slash == std::string_view::npos ? file : file.substr(slash + 1));
}

SiteNamer::SiteNamer(const StackTable& stacks) : stacks_(stacks) { none_.label = std::string(kNoStackSite); }

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
