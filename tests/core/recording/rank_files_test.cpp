#include "core/recording/rank_files.h"

#include <gtest/gtest.h>

namespace sawtooth::recording {
namespace {

TEST(RankFiles, NamesRoundTrip) {
  EXPECT_EQ(rankFilePath("/tmp/dp.sawtooth", 3), "/tmp/dp.rank3.sawtooth");
  EXPECT_EQ(rankFilePath("/tmp/dp", 0), "/tmp/dp.rank0.sawtooth");
  const auto parsed = parseRankFileName("train.2026.rank12.sawtooth");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->stem, "train.2026");
  EXPECT_EQ(parsed->rank, 12);
}

TEST(RankFiles, OtherNamesAreNotRankFiles) {
  for (const char* name : {"dp.sawtooth", "dp.rank.sawtooth", ".rank1.sawtooth", "dp.rank1.sawtooth-wal",
                           "dp.rank-1.sawtooth", "dp.rank01.sawtooth", "dp.rank1x.sawtooth", "dp.rank1234567.sawtooth",
                           "dp.ranks.sawtooth", "dp.rank1.pickle"})
    EXPECT_FALSE(parseRankFileName(name)) << name;
}

}  // namespace
}  // namespace sawtooth::recording
