#pragma once
// Call sites: where an allocation was made, as the one frame a user recognises — the innermost
// frame of the user's own code (a Python file outside site-packages, dist-packages and the
// standard library), else the innermost Python frame, else the first frame that is not the
// allocator's, the unwinder's or the interpreter's. The recorder's own frames (its start-up shim,
// sawtooth_shim/*, which wraps some of PyTorch's calls) are never a site.
//
// Files are keyed by their own path alone, never by the other files of the trace, so that one
// program's sites match across tools and machines (PyTorch's snapshot of `python train.py` says
// `train.py`, a recording of `python /home/ann/train.py` says the whole path): library files
// lose everything up to site-packages/ (or the standard library's lib/pythonX.Y/), the user's own
// files keep their base name.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/model/event_store.h"
#include "core/analysis/frame_filter.h"
#include "core/model/stack_table.h"

namespace sawtooth {

inline constexpr std::string_view kNoStackSite = "(no stack)";
inline constexpr uint32_t kNoFrame = UINT32_MAX;

bool isPythonFrame(FrameView frame);
bool isUserFrame(FrameView frame);
// A file as sites name it: "torch/nn/modules/linear.py", "runpy.py", "train.py".
std::string normaliseFile(std::string_view file);

struct CallSite {
  std::string file;      // normalised
  std::string function;
  int64_t line = 0;
  std::string label;     // "train.py:42 forward"; kNoStackSite for none
};

class SiteNamer {
 public:
  explicit SiteNamer(const StackTable& stacks);

  // The site of a stack (kNoStack: the "(no stack)" site). Cached per stack.
  const CallSite& site(uint32_t stack);
  // The site's frame in the stack table; kNoFrame for none.
  uint32_t siteFrame(uint32_t stack) const;
  // A frame as a label ("train.py:42 forward"), its file normalised.
  std::string frameLabel(uint32_t frame) const;

 private:
  const StackTable& stacks_;
  std::unordered_map<uint32_t, CallSite> cache_;
  CallSite none_;
};

}  // namespace sawtooth
