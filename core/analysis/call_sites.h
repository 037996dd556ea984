#pragma once
// Call sites: where an allocation was made, as the one frame a user recognises — the innermost
// frame of the user's own code (a Python file outside site-packages, dist-packages and the
// standard library), else the innermost Python frame, else the first frame that is not the
// allocator's, the unwinder's or the interpreter's. Files are normalised so that two traces of
// one program match even from different machines: library paths lose everything up to
// site-packages/, user paths lose the directory all the trace's user files share.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/model/event_store.h"
#include "core/model/stack_table.h"

namespace sawtooth {

inline constexpr std::string_view kNoStackSite = "(no stack)";
inline constexpr uint32_t kNoFrame = UINT32_MAX;

bool isPythonFrame(FrameView frame);
bool isUserFrame(FrameView frame);

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
  std::string normaliseFile(std::string_view file) const;

 private:
  const StackTable& stacks_;
  std::string user_prefix_;  // the directory every user file of the trace shares
  std::unordered_map<uint32_t, CallSite> cache_;
  CallSite none_;
};

}  // namespace sawtooth
