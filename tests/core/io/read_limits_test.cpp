// --limit NAME=VALUE: every limit a refusal names ("raise it with --limit NAME=N") can be set.

#include "core/io/read_limits.h"

#include <gtest/gtest.h>

namespace sawtooth {
namespace {

TEST(ReadLimits, TheLimitsOfIssue28CanBeRaised) {
  ReadLimits limits;
  ASSERT_TRUE(setLimit(limits, "journal=4g").ok());
  EXPECT_EQ(limits.max_journal, uint64_t{4} << 30);
  ASSERT_TRUE(setLimit(limits, "amplification=1000").ok());
  EXPECT_EQ(limits.max_amplification, 1000u);
  ASSERT_TRUE(setLimit(limits, "size=2t").ok());
  EXPECT_EQ(limits.max_size, uint64_t{2} << 40);
  EXPECT_EQ(raiseHint("amplification"), "raise it with --limit amplification=N");
}

TEST(ReadLimits, EveryNamedLimitIsAccepted) {
  for (std::string_view name : limitNames()) {
    ReadLimits limits;
    EXPECT_TRUE(setLimit(limits, std::string(name) + "=7").ok()) << name;
  }
  ReadLimits limits;
  const Status unknown = setLimit(limits, "nonsense=1");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("journal, amplification, size"), std::string::npos) << unknown.error().message;
}

}  // namespace
}  // namespace sawtooth
