#include "core/util/keyed_hash.h"

#include <gtest/gtest.h>

#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/util/flat_index.h"
#include "tests/core/util/fixed_hash_collisions.h"

namespace sawtooth {
namespace {

using test::collidingLines;
using test::fixedFrameHash;

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
