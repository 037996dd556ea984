// Converting traces (io/trace_convert.h): the amplification limit on what a
// conversion writes, and the app's cached conversions of snapshots — converted
// once into the cache, found again by the snapshot's content, nothing left
// there when a conversion is cancelled or fails.

#include "core/io/trace_convert.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "core/io/file_bytes.h"
#include "core/io/native_format.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> listing(const std::string &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  return names;
}

std::string freshDir(const std::string &name) {
  const std::string dir = test::tempPath(name);
  fs::remove_all(dir);
  return dir;
}

TEST(WrittenAmplification, FramesRepeatingOneLongNameAreRefusedNamingTheFrame) {
  StackTable stacks;
  const std::string name(65536, 'x');
  for (int line = 0; line < 2000; ++line) stacks.internFrame(name, "model.py", line);
  stacks.internFrame("forward", "model.py", 1);
  // 131 MB of names from 100 kB: refused, saying which frame and how often its
  // name repeats.
  const Status refused = withinWrittenAmplification(stacks, 100000, ReadLimits{}, "big.pickle");
  ASSERT_FALSE(refused.ok());
  const std::string &m = refused.error().message;
  EXPECT_EQ(m.rfind("big.pickle: ", 0), 0u) << m;
  EXPECT_NE(m.find("131088015 bytes of frame names and files from 100000 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("frame 0's name, 65536 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("repeated by 2000 frames"), std::string::npos) << m;
  EXPECT_NE(m.find("--limit amplification=N"), std::string::npos) << m;
  // From an input that size spends on them, or with the limit raised, it is
  // written.
  EXPECT_TRUE(withinWrittenAmplification(stacks, 100000000, ReadLimits{}, "big.pickle").ok());
  ReadLimits raised;
  raised.max_amplification = 2000;
  EXPECT_TRUE(withinWrittenAmplification(stacks, 100000, raised, "big.pickle").ok());
}

TEST(WrittenAmplification, AGzipFileIsMeasuredByWhatItDecompressesTo) {
  const std::string gz = test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz");
  auto bytes = readMaybeGzip(gz);  // decompressed
  ASSERT_TRUE(bytes.ok());
  EXPECT_GT(bytes->size(), fs::file_size(gz));
  EXPECT_EQ(conversionInputBytes(gz), bytes->size());
  const std::string plain = test::dataPath("anatomy_adam_snapshot.pickle");
  EXPECT_EQ(conversionInputBytes(plain), fs::file_size(plain));
}

TEST(CachedConversion, ConvertedOnceThenFoundByTheSnapshotsContent) {
  const std::string dir = freshDir("conversions-once");
  const std::string snapshot = test::tempPath("cached-conversion.pickle");
  fs::copy_file(test::dataPath("anatomy_adam_snapshot.pickle"), snapshot, fs::copy_options::overwrite_existing);
  EXPECT_FALSE(findCachedConversion(dir, snapshot));
  auto converted = convertIntoCache(dir, snapshot, ReadLimits{});
  ASSERT_TRUE(converted.ok()) << converted.error().message;
  EXPECT_EQ(fs::path(*converted).parent_path(), fs::path(dir));
  EXPECT_EQ(listing(dir), std::vector<std::string>{fs::path(*converted).filename().string()});
  auto key = fileContentKey(snapshot);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(fs::path(*converted).filename().string(), *key + ".sawtooth");
  EXPECT_EQ(findCachedConversion(dir, snapshot), *converted);
  // The conversion holds the snapshot's events.
  auto original = loadTrace(snapshot);
  auto reread = loadTrace(*converted);
  ASSERT_TRUE(original.ok() && reread.ok());
  EXPECT_EQ(reread->events.size(), original->events.size());
  // Another content (appended to: size and modification time change) is not
  // found.
  { std::ofstream(snapshot, std::ios::app) << ' '; }
  EXPECT_FALSE(findCachedConversion(dir, snapshot));
}

TEST(CachedConversion, ACancelledOrFailedConversionLeavesNothingInTheCache) {
  const std::string dir = freshDir("conversions-cancelled");
  const std::string snapshot = test::dataPath("anatomy_adam_snapshot.pickle");
  std::atomic<bool> cancel{false};
  int reported = 0;
  // Cancelled half-way, from the conversion's own progress reports (the app's
  // Cancel button).
  Progress progress(
      [&](int permille) {
        ++reported;
        if (permille >= 500) cancel = true;
      },
      &cancel);
  auto cancelled = convertIntoCache(dir, snapshot, ReadLimits{}, &progress);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.error().message, "cancelled");
  EXPECT_GT(reported, 0);
  EXPECT_TRUE(listing(dir).empty()) << listing(dir).front();
  EXPECT_FALSE(findCachedConversion(dir, snapshot));
  // A file that is not a trace.
  const std::string junk = test::tempPath("not-a-trace.pickle");
  { std::ofstream(junk) << "not a trace at all"; }
  EXPECT_FALSE(convertIntoCache(dir, junk, ReadLimits{}).ok());
  EXPECT_TRUE(listing(dir).empty());
}

}  // namespace
}  // namespace sawtooth
