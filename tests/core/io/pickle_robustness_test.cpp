// Truncated and corrupted inputs must give an error value (or a valid parse), never a crash.
// Run under ASan/UBSan in the fuzz preset, which also runs the libFuzzer targets.

#include <gtest/gtest.h>

#include <random>

#include "core/io/file_bytes.h"
#include "core/io/pickle_document.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

std::string load(const char* name) {
  auto bytes = readMaybeGzip(test::dataPath(name));
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::string();
}

TEST(PickleRobustness, EveryTruncationOfTheOomSnapshotIsAnError) {
  const std::string full = load("oom_mlp_snapshot_protocol2.pickle.gz");
  ASSERT_GT(full.size(), 1000u);
  for (size_t n = 0; n < full.size(); ++n) {
    auto trace = loadTraceFromBytes(full.substr(0, n), "cut");
    ASSERT_FALSE(trace.ok()) << "a prefix of " << n << " bytes parsed";
    EXPECT_EQ(trace.error().message.rfind("cut: ", 0), 0u);
  }
}

TEST(PickleRobustness, TruncationsOfTheAnatomySnapshotAreErrors) {
  const std::string full = load("anatomy_adam_snapshot.pickle");
  for (size_t n = 0; n < full.size(); n += 97) {
    auto doc = pickle::parse(full.substr(0, n));
    ASSERT_FALSE(doc.ok()) << n;
  }
}

TEST(PickleRobustness, TruncatedProtocol0IsAnError) {
  const std::string full = load("anatomy_adam_snapshot_protocol0.pickle.gz");
  for (size_t n = 0; n < full.size(); n += 1009) ASSERT_FALSE(pickle::parse(full.substr(0, n)).ok()) << n;
}

TEST(PickleRobustness, RandomCorruptionNeverCrashes) {
  const std::string snapshots[] = {load("oom_mlp_snapshot_protocol2.pickle.gz"), load("anatomy_adam_snapshot.pickle"),
                                   load("anatomy_adam_snapshot_protocol0.pickle.gz")};
  std::mt19937_64 rng(20261129);
  size_t errors = 0, parsed = 0;
  for (const std::string& original : snapshots) {
    for (int round = 0; round < 300; ++round) {
      std::string data = original;
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) data[rng() % data.size()] = static_cast<char>(rng() & 0xff);
      auto trace = loadTraceFromBytes(std::move(data), "corrupt");
      (trace.ok() ? parsed : errors)++;
    }
  }
  EXPECT_GT(errors, 0u);
  EXPECT_EQ(errors + parsed, 900u);
}

// PUTs far past the memo's end, each one more slot than a pickle could have stored by then: refused
// at the first, where a 20 KB file used to grow the memo to the memory limit.
TEST(PickleRobustness, MemoKeysPastWhatThePickleCouldHaveStoredAreRefused) {
  std::string body = "\x80\x04";
  for (uint32_t k = 1; body.size() < 20000; ++k) {
    const uint32_t key = k << 20;
    body += "Nr";
    body.append(reinterpret_cast<const char*>(&key), 4);
  }
  auto trace = loadTraceFromBytes(body + ".", "memo.pickle");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("byte 3: LONG_BINPUT index 1048576 is far past the memo's end (0): no pickle "
                                       "stores that many values in its first 8 bytes"),
            std::string::npos)
      << trace.error().message;
  // A gap within what could have been stored is read as Python reads it.
  auto near = loadTraceFromBytes(std::string("\x80\x02NNNNq\x03") + "0h\x03.", "near.pickle");
  EXPECT_FALSE(near.ok());  // None is not a snapshot, but the memo took it
  EXPECT_EQ(near.error().message.find("far past"), std::string::npos) << near.error().message;
}

}  // namespace
}  // namespace sawtooth
