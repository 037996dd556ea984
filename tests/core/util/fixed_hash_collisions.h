#pragma once
// Keys built to collide under the fixed hash the interning tables used before issue 28
// (core/util/flat_index.h's hashBytes: multiply-xorshift over 8-byte words). Every step of it can be
// undone, so a file could hold frames that all share the low 32 bits of their hash
// (tests/make_hostile_corpus.py builds such files); the tests check that they spread now.

#include <cstdint>
#include <vector>

namespace sawtooth::test {

// The old mixer and its inverse.
inline uint64_t mix(uint64_t v) {
  v ^= v >> 33;
  v *= 0xc4ceb9fe1a85ec53ull;
  return v ^ (v >> 29);
}
inline uint64_t unshift(uint64_t y, int s) {
  uint64_t x = y;
  for (int i = 0; i <= 64 / s; ++i) x = y ^ (x >> s);
  return x;
}
inline uint64_t inverse(uint64_t odd) {  // Newton's iteration modulo 2^64
  uint64_t x = odd;
  for (int i = 0; i < 6; ++i) x *= 2 - odd * x;
  return x;
}
inline uint64_t unmix(uint64_t v) { return unshift(unshift(v, 29) * inverse(0xc4ceb9fe1a85ec53ull), 33); }

constexpr uint64_t kC1 = 0x9fb21c651e98df25ull, kC2 = 0x94d049bb133111ebull;

inline uint64_t fixedFrameHash(uint64_t w0, uint64_t w1) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (16 * 0xff51afd7ed558ccdull);
  h = mix(h ^ (w0 * kC1)) * kC2;
  h = mix(h ^ (w1 * kC1)) * kC2;
  return mix(mix(h));
}

// Frames (name 0, file 1, line) whose fixed hashes share their low 32 bits.
inline std::vector<uint64_t> collidingLines(size_t n) {
  const uint64_t w0 = 1;
  const uint64_t h1 = mix((0x9e3779b97f4a7c15ull ^ (16 * 0xff51afd7ed558ccdull)) ^ (w0 * kC1)) * kC2;
  std::vector<uint64_t> lines;
  for (uint64_t k = 1; lines.size() < n; ++k) {
    const uint64_t h2 = unmix(unmix(k << 32 | 0x5a5a5a5a));
    lines.push_back((unmix(h2 * inverse(kC2)) ^ h1) * inverse(kC1));
  }
  return lines;
}

}  // namespace sawtooth::test
