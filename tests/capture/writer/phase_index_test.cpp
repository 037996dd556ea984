// PhaseIndex against a brute-force scan of every phase, and the bound that keeps a recording's
// late records (CUPTI's) linear: each lookup examines at most the nesting depth.

#include <gtest/gtest.h>

#include <random>

#include "capture/writer/phase_index.h"

namespace sawtooth::capture {
namespace {

struct Interval {
  uint32_t id;
  int64_t begin, end;
  uint16_t run;
  int depth;
};

// Innermost (latest begun) phase covering t, as the writer used to find it.
uint32_t bruteForce(const std::vector<Interval>& phases, int64_t t, uint16_t* run) {
  uint32_t best = kNoPhase;
  int64_t best_begin = INT64_MIN;
  for (const auto& p : phases)
    if (p.begin <= t && t <= p.end && p.begin >= best_begin) best = p.id, best_begin = p.begin, *run = p.run;
  return best;
}

TEST(PhaseIndex, FindsTheInnermostPhaseLikeAFullScan) {
  std::mt19937 rng(7);
  PhaseIndex index;
  std::vector<Interval> phases;
  std::vector<size_t> open;
  int64_t t = 0;
  uint32_t next = 0;
  for (int i = 0; i < 4000; ++i) {
    t += 1 + static_cast<int64_t>(rng() % 5);
    const bool can_open = open.size() < 4, can_close = !open.empty();
    if (can_open && (!can_close || rng() % 2)) {
      const auto run = static_cast<uint16_t>(next / 100);
      phases.push_back({next, t, INT64_MAX, run, static_cast<int>(open.size())});
      index.begin(next++, t, run);
      open.push_back(phases.size() - 1);
    } else {
      phases[open.back()].end = t;
      index.end(phases[open.back()].id, t);
      open.pop_back();
    }
  }
  for (int64_t q = -2; q <= t + 2; ++q) {
    uint16_t want_run = kNoRun, got_run = 999;
    const uint32_t want = bruteForce(phases, q, &want_run);
    const uint32_t got = index.innermostAt(q, &got_run, kNoRun);
    ASSERT_EQ(got, want) << "at t=" << q;
    ASSERT_EQ(got_run, want_run) << "at t=" << q;
    EXPECT_LE(index.lastProbeCount(), 5u) << "at t=" << q;  // nesting depth 4, plus one
  }
}

TEST(PhaseIndex, ALookupCostsTheSameAfterAMillionPhases) {
  PhaseIndex index;
  // 200,000 steps of four phases, as a long training run makes.
  int64_t t = 0;
  uint32_t id = 0;
  for (int step = 0; step < 200'000; ++step)
    for (int p = 0; p < 4; ++p) {
      index.begin(id, t, 0);
      index.end(id++, t + 10);
      t += 20;
    }
  uint16_t run = 0;
  EXPECT_EQ(index.innermostAt(5, &run), 0u);
  EXPECT_LE(index.lastProbeCount(), 1u);
  EXPECT_EQ(index.innermostAt(t - 15, &run), id - 1);
  EXPECT_LE(index.lastProbeCount(), 1u);
  EXPECT_EQ(index.innermostAt(t - 5, &run), kNoPhase);  // between phases: none, found at once
  EXPECT_LE(index.lastProbeCount(), 1u);
}

TEST(PhaseIndex, ForgetsOnlyPhasesThatEndedBeforeAndKeepsFindingTheRest) {
  PhaseIndex index;
  for (uint32_t id = 1; id <= 100; ++id) {
    index.begin(id, id * 10, 0);
    index.end(id, id * 10 + 5);
  }
  index.forgetEndedBefore(505);
  EXPECT_EQ(index.size(), 51u);  // phases 50 (500..505) to 100 stay
  uint16_t run = 0;
  EXPECT_EQ(index.innermostAt(503, &run), 50u);
  EXPECT_EQ(index.innermostAt(13, &run), kNoPhase);  // phase 1 is forgotten
  // An enclosing phase still open keeps everything after it.
  index.begin(200, 2000, 0);
  index.begin(201, 2010, 0);
  index.end(201, 2020);
  index.forgetEndedBefore(3000);
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.innermostAt(2015, &run), 201u);
  EXPECT_EQ(index.innermostAt(2500, &run), 200u);
}

TEST(PhaseIndex, EndingAnOuterPhaseEndsThePhasesLeftOpenInsideIt) {
  PhaseIndex index;
  index.begin(0, 0, 1);
  index.begin(1, 10, 1);
  index.end(0, 50);  // phase 1 was never closed
  uint16_t run = 0;
  EXPECT_EQ(index.innermostAt(20, &run), 1u);
  EXPECT_EQ(index.innermostAt(60, &run, 7), kNoPhase);
  EXPECT_EQ(run, 7);
}

}  // namespace
}  // namespace sawtooth::capture
