// JAX's compile-time plan beside LibTorch's run-time count: the JAX CPU fixture's memory_analysis
// against the H200 anatomy sample, and the sum-of-categories peak on a trace made here.

#include <gtest/gtest.h>

#include "core/analysis/category_series.h"
#include "core/analysis/jax_plan.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

Trace loaded(const std::string& path) {
  auto t = loadTrace(path);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

TEST(JaxPlan, ThePlanBesideTheAnatomyCount) {
  const Trace jax = loaded(test::dataPath("jax_seed_cpu.prof"));
  const Trace anatomy = loaded(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  const auto rows = jaxPlanBesideCount(jax, &anatomy, 0);
  ASSERT_EQ(rows.size(), 5u);
  // jax_seed_cpu.memory_analysis.json
  EXPECT_EQ(rows[0].jax_plan_bytes, 1605632);
  EXPECT_EQ(rows[1].jax_plan_bytes, 1572912);
  EXPECT_EQ(rows[2].jax_plan_bytes, 229376);
  EXPECT_EQ(rows[3].jax_plan_bytes, 0);
  EXPECT_EQ(rows[4].jax_plan_bytes, 1605632 + 1572912 + 229376);
  // The anatomy sample's parameters (4P), inputs and gradients (4P), as check_samples.py reads
  // them against torch.profiler's own categories.
  EXPECT_EQ(*rows[0].libtorch_count_bytes, 100663296 + 2097152);
  EXPECT_EQ(*rows[1].libtorch_count_bytes, 100663296);
  const CategoryPeaks peaks = categoryPeaks(anatomy, 0);
  EXPECT_GE(*rows[2].libtorch_count_bytes, peaks.peak[static_cast<size_t>(Category::Activation)]);
  EXPECT_FALSE(rows[3].libtorch_count_bytes);
  EXPECT_GE(*rows[4].libtorch_count_bytes, *rows[0].libtorch_count_bytes + *rows[1].libtorch_count_bytes);
  EXPECT_TRUE(jaxPlanBesideCount(jax, nullptr, 0)[0].libtorch_count_bytes == std::nullopt);
  EXPECT_TRUE(jaxPlanBesideCount(anatomy, &anatomy, 0).empty());  // no plan in a LibTorch recording
}

// The same net on the H200 (bench/gpu/stages/seed.sh, jaxplan): the profile JAX wrote there and
// the figures its memory_analysis() printed (jax_seed_h200.memory_analysis.json).
TEST(JaxPlan, TheH200ProfileCarriesItsPlan) {
  const Trace jax = loaded(test::dataPath("jax_seed_h200.prof"));
  const auto rows = jaxPlanBesideCount(jax, nullptr, 0);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].jax_plan_bytes, 102760448);
  EXPECT_EQ(rows[1].jax_plan_bytes, 100663344);
  EXPECT_EQ(rows[2].jax_plan_bytes, 33554448);
  EXPECT_EQ(rows[3].jax_plan_bytes, 0);
  // Live at the end: the arguments and the six gradients, 203,423,744 bytes in 13 buffers.
  EXPECT_EQ(jax.events.size(), 13u);
}

TEST(JaxPlan, CountsThePeakOfTheSumNotTheSumOfPeaks) {
  Trace jax;
  jax.runs.push_back(sawtooth::Run{"jax memory profile", "jax-memory-profile", {},
                         {{"jax_plan_argument_bytes", 1, "bytes"}, {"jax_plan_output_bytes", 1, "bytes"},
                          {"jax_plan_temp_bytes", 1, "bytes"}, {"jax_plan_alias_bytes", 0, "bytes"},
                          {"jax_plan_total_bytes", 3, "bytes"}}});
  // Activation 100 then freed, then temporary 70: each peaks alone, the sum never passes 100.
  Trace t;
  auto push = [&](Action a, uint64_t addr, int64_t size, Category c) {
    Event e;
    e.action = a;
    e.addr = addr;
    e.size = size;
    e.category = c;
    t.events.push(e);
  };
  push(Action::Alloc, 1, 100, Category::Activation);
  push(Action::FreeCompleted, 1, 100, Category::Activation);
  push(Action::Alloc, 2, 70, Category::Temporary);
  const auto rows = jaxPlanBesideCount(jax, &t, 0);
  EXPECT_EQ(*rows[2].libtorch_count_bytes, 100);
  EXPECT_EQ(*rows[4].libtorch_count_bytes, 100);
}

}  // namespace
}  // namespace sawtooth
