#pragma once
// The events of a trace, stored column by column (struct of arrays): scans over one column stay
// in cache and an event costs 49 bytes resident, 54 in a trace that records modules (the module
// and pass columns exist only once an event has one: snapshots and old files do not pay for them).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/model/action.h"

namespace sawtooth {

inline constexpr uint32_t kNoPhase = UINT32_MAX;
inline constexpr uint32_t kNoStack = UINT32_MAX;
inline constexpr uint16_t kNoRun = UINT16_MAX;
inline constexpr uint32_t kNoModule = UINT32_MAX;  // outside every module (model/module_tree.h)
// A device: the CUDA ordinal, or kCpuDevice. 32 bits, so that no id a file holds is truncated.
using DeviceId = int32_t;
inline constexpr DeviceId kCpuDevice = -1;

struct Event {
  int64_t t_ns = 0;  // since the trace's start
  DeviceId device = 0;
  Source source = Source::Allocator;
  Action action = Action::Alloc;
  uint64_t addr = 0;
  int64_t size = 0;
  uint64_t stream = 0;
  Category category = Category::Unknown;
  uint32_t phase = kNoPhase;
  uint32_t stack = kNoStack;
  uint16_t run = kNoRun;
  uint32_t module = kNoModule;  // the module the bytes belong to (an index into Trace::modules)
  Pass pass = Pass::None;
};

class EventStore {
 public:
  size_t size() const { return t_ns_.size(); }
  bool empty() const { return t_ns_.empty(); }
  void reserve(size_t n);
  void shrinkToFit();
  void clear();
  void push(const Event& e);
  // For readers that fill events in any order (several threads, each its own indices). set()
  // keeps an event's module and pass only when the store has those columns: a reader of a file
  // that records modules calls enableModules() before its threads start.
  void resize(size_t n);
  void set(size_t i, const Event& e);
  Event at(size_t i) const;

  // Column access for scans.
  const std::vector<int64_t>& tNs() const { return t_ns_; }
  const std::vector<DeviceId>& device() const { return device_; }
  const std::vector<Source>& source() const { return source_; }
  const std::vector<Action>& action() const { return action_; }
  const std::vector<uint64_t>& addr() const { return addr_; }
  const std::vector<int64_t>& sizes() const { return size_; }
  const std::vector<uint64_t>& stream() const { return stream_; }
  const std::vector<Category>& category() const { return category_; }
  const std::vector<uint32_t>& phase() const { return phase_; }
  const std::vector<uint32_t>& stack() const { return stack_; }
  const std::vector<uint16_t>& run() const { return run_; }
  // The module and pass of event i (kNoModule and Pass::None in a store without those columns).
  bool hasModules() const { return modules_enabled_; }
  uint32_t module(size_t i) const { return module_.empty() ? kNoModule : module_[i]; }
  Pass pass(size_t i) const { return pass_.empty() ? Pass::None : pass_[i]; }
  // Adds the module and pass columns (every event outside modules) if they are not there yet.
  void enableModules();
  void setModule(size_t i, uint32_t module, Pass pass);

  // Attribution is filled in after the events are known.
  void setPhase(size_t i, uint32_t phase) { phase_[i] = phase; }
  void setCategory(size_t i, Category c) { category_[i] = c; }
  // Importers that learn the trace's start only after reading every event store times first.
  void shiftTimes(int64_t delta_ns);
  void setStack(size_t i, uint32_t stack) { stack_[i] = stack; }

  size_t bytesResident() const;

  // For readers that build the columns in place (the snapshot decoder writes each field of an
  // event as the file assigns it).
  struct Columns {
    std::vector<int64_t>& t_ns;
    std::vector<DeviceId>& device;
    std::vector<Action>& action;
    std::vector<uint64_t>& addr;
    std::vector<int64_t>& size;
    std::vector<uint64_t>& stream;
    std::vector<uint32_t>& stack;
  };
  Columns columns() { return Columns{t_ns_, device_, action_, addr_, size_, stream_, stack_}; }
  size_t capacity() const { return t_ns_.capacity(); }

 private:
  std::vector<int64_t> t_ns_;
  std::vector<DeviceId> device_;
  std::vector<Source> source_;
  std::vector<Action> action_;
  std::vector<uint64_t> addr_;
  std::vector<int64_t> size_;
  std::vector<uint64_t> stream_;
  std::vector<Category> category_;
  std::vector<uint32_t> phase_;
  std::vector<uint32_t> stack_;
  std::vector<uint16_t> run_;
  std::vector<uint32_t> module_;  // empty, or one per event
  std::vector<Pass> pass_;
  bool modules_enabled_ = false;
};

}  // namespace sawtooth
