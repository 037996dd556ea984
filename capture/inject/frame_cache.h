#pragma once
// Python frames the allocator tracker has already symbolized, by (code object, instruction
// offset), so that a delivery takes the program's GIL only for frames it has not seen before: a
// training loop's allocations come from the same few thousand frames every step.
//
// A key is an address, valid only while its code object lives: whoever adds frames also pins
// something that keeps their code objects alive (in the tracker, the traceback they came from,
// which holds a reference to each). Past `capacity` frames the cache forgets everything, pins
// included, and fills again.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace sawtooth::tracker {

class FrameCache {
 public:
  struct Key {
    const void* code = nullptr;
    int lasti = 0;
    bool operator==(const Key&) const = default;
  };

  explicit FrameCache(size_t capacity = size_t{1} << 16) : capacity_(capacity) {}

  // Every key's frame id in `ids` (replacing what it held), or false when one is missing.
  bool lookup(const Key* keys, size_t n, std::vector<uint32_t>& ids) const {
    ids.clear();
    for (size_t i = 0; i < n; ++i) {
      auto it = ids_.find(keys[i]);
      if (it == ids_.end()) return false;
      ids.push_back(it->second);
    }
    return true;
  }

  // Adds what is missing of `keys` (ids[i] is keys[i]'s frame) and keeps `pin` while any of them
  // stays. Returns how many were new.
  size_t add(const Key* keys, const uint32_t* ids, size_t n, std::shared_ptr<const void> pin) {
    size_t added = 0;
    for (size_t i = 0; i < n; ++i) added += ids_.emplace(keys[i], ids[i]).second ? 1 : 0;
    if (added > 0) pins_.push_back(std::move(pin));
    return added;
  }

  // Call between deliveries (never while a looked-up id is in use for a key): forgets all once
  // over capacity, so that the cache and its pins stay bounded.
  void trim() {
    if (ids_.size() <= capacity_) return;
    ids_.clear();
    pins_.clear();
  }

  void clear() {
    ids_.clear();
    pins_.clear();
  }

  size_t size() const { return ids_.size(); }
  size_t pins() const { return pins_.size(); }

  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.code) * 31 + std::hash<int>()(k.lasti);
    }
  };

 private:
  size_t capacity_;
  std::unordered_map<Key, uint32_t, KeyHash> ids_;
  std::vector<std::shared_ptr<const void>> pins_;
};

}  // namespace sawtooth::tracker
