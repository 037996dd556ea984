#pragma once
// An open-addressing hash index of dense ids (0, 1, 2, ...) whose keys live elsewhere: the table
// stores only each id's hash, and the caller says whether an id's key equals the one looked up.
// Interning tables (strings, frames, stacks) use it so that a lookup allocates nothing.

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace sawtooth {

// 64-bit hash of a byte string (multiply-xorshift over 8-byte words); good spread, no allocation.
inline uint64_t hashBytes(const void* data, size_t size, uint64_t seed = 0x9e3779b97f4a7c15ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = seed ^ (size * 0xff51afd7ed558ccdull);
  auto mix = [](uint64_t v) {
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ull;
    v ^= v >> 29;
    return v;
  };
  while (size >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix(h ^ (w * 0x9fb21c651e98df25ull)) * 0x94d049bb133111ebull;
    p += 8;
    size -= 8;
  }
  uint64_t tail = 0;
  if (size > 0) std::memcpy(&tail, p, size);  // an empty view may have no data pointer
  h = mix(h ^ (tail * 0x9fb21c651e98df25ull) ^ size);
  return mix(h);
}
inline uint64_t hashText(std::string_view text) { return hashBytes(text.data(), text.size()); }

class FlatIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // The id whose key `equals` says matches, among those stored with this hash; kNone if none.
  template <typename Equals>
  uint32_t find(uint64_t hash, Equals&& equals) const {
    if (slots_.empty()) return kNone;
    const auto h = static_cast<uint32_t>(hash);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id == kNone) return kNone;
      if (s.hash == h && equals(s.id)) return s.id;
    }
  }

  // Records `id` (new, not present) under `hash`.
  void insert(uint64_t hash, uint32_t id) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    place(static_cast<uint32_t>(hash), id);
    ++count_;
  }

  size_t bytesResident() const { return slots_.capacity() * sizeof(Slot); }

 private:
  struct Slot {
    uint32_t hash = 0;
    uint32_t id = kNone;
  };
  void place(uint32_t h, uint32_t id) {
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].id == kNone) {
        slots_[i] = {h, id};
        return;
      }
    }
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.id != kNone) place(s.hash, s.id);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t count_ = 0;
};

}  // namespace sawtooth
