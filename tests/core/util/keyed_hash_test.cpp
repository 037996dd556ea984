#include "core/util/keyed_hash.h"

#include <gtest/gtest.h>

#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/util/flat_index.h"

namespace sawtooth {
namespace {

// The fixed hash the interning tables used before (multiply-xorshift over 8-byte words, for the
// two words of a frame): every step can be undone, so a file could hold frames that all share the
// low 32 bits of their hash (tests/make_hostile_corpus.py builds such files).
uint64_t mix(uint64_t v) {
  v ^= v >> 33;
  v *= 0xc4ceb9fe1a85ec53ull;
  return v ^ (v >> 29);
}
uint64_t unshift(uint64_t y, int s) {
  uint64_t x = y;
  for (int i = 0; i <= 64 / s; ++i) x = y ^ (x >> s);
  return x;
}
uint64_t inverse(uint64_t odd) {  // Newton's iteration modulo 2^64
  uint64_t x = odd;
  for (int i = 0; i < 6; ++i) x *= 2 - odd * x;
  return x;
}
uint64_t unmix(uint64_t v) { return unshift(unshift(v, 29) * inverse(0xc4ceb9fe1a85ec53ull), 33); }

constexpr uint64_t kC1 = 0x9fb21c651e98df25ull, kC2 = 0x94d049bb133111ebull;

uint64_t fixedFrameHash(uint64_t w0, uint64_t w1) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (16 * 0xff51afd7ed558ccdull);
  h = mix(h ^ (w0 * kC1)) * kC2;
  h = mix(h ^ (w1 * kC1)) * kC2;
  return mix(mix(h));
}

// Frames (name 0, file 1, line) whose fixed hashes share their low 32 bits.
std::vector<uint64_t> collidingLines(size_t n) {
  const uint64_t w0 = 1;
  const uint64_t h1 = mix((0x9e3779b97f4a7c15ull ^ (16 * 0xff51afd7ed558ccdull)) ^ (w0 * kC1)) * kC2;
  std::vector<uint64_t> lines;
  for (uint64_t k = 1; lines.size() < n; ++k) {
    const uint64_t h2 = unmix(unmix(k << 32 | 0x5a5a5a5a));
    lines.push_back((unmix(h2 * inverse(kC2)) ^ h1) * inverse(kC1));
  }
  return lines;
}

TEST(KeyedHash, KeysBuiltToCollideUnderAFixedHashSpreadUnderTheKeyedOne) {
  const auto lines = collidingLines(20000);
  ASSERT_EQ(static_cast<uint32_t>(fixedFrameHash(1, lines[0])), static_cast<uint32_t>(fixedFrameHash(1, lines[1])));
  ASSERT_EQ(static_cast<uint32_t>(fixedFrameHash(1, lines[0])), static_cast<uint32_t>(fixedFrameHash(1, lines.back())));
  FlatIndex index;
  for (size_t i = 0; i < lines.size(); ++i) {
    const uint64_t words[2] = {1, lines[i]};
    index.insert(keyedHash(words, sizeof words), static_cast<uint32_t>(i));
  }
  // Under the fixed hash this run is all 20,000 of them: each lookup walked every other frame.
  // Linear probing at half load keeps its longest run to a few dozen slots.
  EXPECT_LT(index.longestRun(), 200u);
}

TEST(KeyedHash, IsAFunctionOfTheBytesWithinOneProcess) {
  const std::string a = "model.py", b = "model.py";
  EXPECT_EQ(keyedHash(a), keyedHash(b));
  EXPECT_NE(keyedHash(std::string_view("model.py")), keyedHash(std::string_view("model.pz")));
  EXPECT_EQ(keyedHash(std::string_view()), keyedHash(nullptr, 0));
  EXPECT_EQ(keyedHash64(42), keyedHash64(42));
}

template <typename Hash>
size_t longestBucketOfMultiples(uint64_t n) {
  // std::hash<uint64_t> is the identity: multiples of the bucket count all land in bucket 0.
  std::unordered_map<uint64_t, int> plain;
  for (uint64_t k = 1; k <= n; ++k) plain[k] = 1;
  std::unordered_map<uint64_t, int, Hash> map;
  for (uint64_t k = 1; k <= n; ++k) map[k * plain.bucket_count()] = 1;
  size_t longest = 0;
  for (size_t b = 0; b < map.bucket_count(); ++b) longest = std::max(longest, map.bucket_size(b));
  return longest;
}

TEST(KeyedHash, AddressesThatFillOneStdHashBucketSpread) {
  EXPECT_EQ(longestBucketOfMultiples<std::hash<uint64_t>>(50000), 50000u);  // the attack
  EXPECT_LT(longestBucketOfMultiples<KeyedHash>(50000), 32u);
}

}  // namespace
}  // namespace sawtooth
