#pragma once
// Where in the model: the modules of a recorded program (a Python program's torch.nn.Modules, a
// LibTorch workload's own), each with its name, class, the bytes of its own parameters and its
// parent, and each call of one (forward, backward, recompute) as a time range.
//
// Names are the ones named_modules() gives from the module's root ("transformer.h.3.attn"); a
// root is named by its class ("GPT2LMHeadModel"), so a module's full name, root first
// ("GPT2LMHeadModel.transformer.h.3.attn"), is the fully qualified name PyTorch's ModTracker and
// MemTracker use. Every event carries the module its bytes belong to (EventStore::module):
// parameters, gradients and optimizer state the module whose parameter they are, everything else
// the innermost module running on the thread that allocated it; and the pass (action.h).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/event_store.h"

namespace sawtooth {

struct Module {
  std::string name;        // from its root, as named_modules() gives it; a root's is its class or label
  std::string class_name;  // "GPT2Block"
  uint32_t parent = kNoModule;  // an earlier module, or kNoModule for a root
  int64_t parameter_bytes = 0;  // its own parameters (not its children's), each tensor counted once
};

struct ModuleCall {
  uint32_t module = kNoModule;
  Pass pass = Pass::Forward;
  uint16_t run = kNoRun;
  int64_t begin_ns = 0;  // on the trace's clock
  int64_t end_ns = 0;
};

struct ModuleTree {
  std::vector<Module> modules;    // a parent comes before its children
  std::vector<ModuleCall> calls;  // by begin time

  bool empty() const { return modules.empty(); }
  size_t size() const { return modules.size(); }
  // 0 for a root.
  int depth(uint32_t module) const;
  uint32_t root(uint32_t module) const;
  // Root first: "GPT2LMHeadModel.transformer.h.3"; a root's is its name.
  std::string fullName(uint32_t module) const;
  // The part of the name below the parent's: "3" for "transformer.h.3" under "transformer.h",
  // a root's whole name.
  std::string_view shortName(uint32_t module) const;
  // Each module's children, in index order.
  std::vector<std::vector<uint32_t>> children() const;
  // The module with this full name, or kNoModule.
  uint32_t find(std::string_view full_name) const;
};

// Empty when every module's parent is an earlier module (so the tree has no cycles and names no
// module that is missing); otherwise what is wrong with the first module that breaks it.
std::string checkModuleTree(const std::vector<Module>& modules);

}  // namespace sawtooth
