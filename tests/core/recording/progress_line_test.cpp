// The recorder's progress lines and exit codes, as both sides read them.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/recording/exit_code.h"
#include "core/recording/progress_line.h"

namespace sawtooth::recording {
namespace {

TEST(ProgressLine, RunLinesRoundTrip) {
  ProgressLine line{"run", "bf16", "bf16: step 3 of 20", 3, 20, 0.4, std::nullopt, "", "", std::nullopt};
  const std::string text = formatProgressLine(line);
  const auto j = nlohmann::json::parse(text);
  for (const char* key : {"stage", "run", "step", "steps", "fraction", "message"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_FALSE(j.contains("rank"));
  auto back = parseProgressLine(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->run, "bf16");
  EXPECT_EQ(back->step, 3);
  EXPECT_EQ(back->steps, 20);
  EXPECT_DOUBLE_EQ(*back->fraction, 0.4);
}

TEST(ProgressLine, StageLinesKeepTheirOwnFields) {
  const std::string text = formatStageLine("error", "CUDA out of memory", R"({"kind": "oom", "message": "old", "rank": 1})");
  auto back = parseProgressLine(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stage, "error");
  EXPECT_EQ(back->message, "CUDA out of memory");
  EXPECT_EQ(back->kind, error_kind::kOutOfMemory);
  EXPECT_EQ(back->rank, 1);
  EXPECT_EQ(nlohmann::json::parse(formatStageLine("start", "go", "not json")).size(), 2u);
}

TEST(ProgressLine, RefusesWhatIsNotProgress) {
  EXPECT_FALSE(parseProgressLine("Warning: something torch printed"));
  EXPECT_FALSE(parseProgressLine(R"({"message": "no stage"})"));
  EXPECT_FALSE(parseProgressLine(std::string(kMaxProgressLineBytes + 1, 'x')));
  auto clamped = parseProgressLine(R"({"stage": "run", "fraction": 7, "step": "three"})");
  ASSERT_TRUE(clamped);
  EXPECT_EQ(*clamped->fraction, 1.0);
  EXPECT_EQ(clamped->step, 0);
}

TEST(ProgressLine, TheRunIsNamedOnce) {
  ProgressLine line;
  line.run = "bf16";
  line.message = "bf16: step 3 of 20";
  EXPECT_EQ(describeProgress(line), "bf16: step 3 of 20");
  line.run = "adam";
  line.message = "step 1 of 3";
  EXPECT_EQ(describeProgress(line), "adam: step 1 of 3");
  line.run = "sharded";
  line.rank = 1;
  line.message = "rank 1: step 2 of 3";
  EXPECT_EQ(describeProgress(line), "rank 1 · sharded: step 2 of 3");
  line.message = "timing steps";
  EXPECT_EQ(describeProgress(line), "rank 1 · sharded: timing steps");
  line = ProgressLine{};
  line.message = "merging";
  EXPECT_EQ(describeProgress(line), "merging");
  line.run = "k=2";
  line.message = "k=2x: odd";  // only a whole "run:" prefix is taken off
  EXPECT_EQ(describeProgress(line), "k=2: k=2x: odd");
}

TEST(ExitCode, EveryCodeHasOneMeaning) {
  EXPECT_EQ(exitCodeFrom(0), ExitCode::Ok);
  EXPECT_EQ(exitCodeFrom(2), ExitCode::Usage);
  EXPECT_EQ(exitCodeFrom(3), ExitCode::OutOfMemory);
  EXPECT_EQ(exitCodeFrom(4), ExitCode::Interrupted);
  EXPECT_EQ(exitCodeFrom(127), std::nullopt);
  EXPECT_EQ(recorderMessage("sawtooth-record: --device cuda: no CUDA device"), "--device cuda: no CUDA device");
  EXPECT_EQ(recorderMessage("Segmentation fault"), "Segmentation fault");
}

TEST(ProgressLine, AProcessStartingItsOwnFileNamesIt) {
  // As the rank launcher and the program recorder write them.
  auto rank = parseProgressLine(formatStageLine(stage::kRankStarted, "rank 1 of 2 started (pid 41)",
                                                R"({"rank": 1, "pid": 41, "out": "/tmp/dp.rank1.sawtooth"})"));
  ASSERT_TRUE(rank);
  EXPECT_EQ(rank->file, "/tmp/dp.rank1.sawtooth");
  EXPECT_EQ(rank->rank, 1);
  EXPECT_EQ(rank->pid, 41);
  auto process = parseProgressLine(formatStageLine(stage::kRecording, "pid 7 records into /tmp/p.pid7.sawtooth",
                                                   R"({"pid": 7, "rank": -1, "path": "/tmp/p.pid7.sawtooth"})"));
  ASSERT_TRUE(process);
  EXPECT_EQ(process->file, "/tmp/p.pid7.sawtooth");
  EXPECT_EQ(process->pid, 7);
  // Other stages name no file, whatever fields they carry.
  auto finished = parseProgressLine(formatStageLine(stage::kFinished, "done", R"({"out": "/tmp/x.sawtooth"})"));
  ASSERT_TRUE(finished);
  EXPECT_TRUE(finished->file.empty());
}

}  // namespace
}  // namespace sawtooth::recording
