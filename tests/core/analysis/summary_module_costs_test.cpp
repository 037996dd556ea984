// Module costs of a file too large to read whole (summary_module_costs.h): over the moment's step,
// from that step's events and calls, the figures the trace read whole gives for the same step.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "core/analysis/module_memory.h"
#include "core/analysis/summary_module_costs.h"
#include "core/analysis/summary_source.h"
#include "core/io/event_pages.h"
#include "core/io/native_format.h"
#include "core/io/native_summary_source.h"
#include "core/io/summary_cache.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

// `steps` identical training steps of Net(0: Linear, 1: Linear): the top-level call begins a
// moment before the forward phase (as the shim marks it), each submodule allocates in forward
// and backward, and every step frees what it made.
Trace steppedTrace(int steps) {
  Trace t;
  t.format = "sawtooth";
  t.deviceInfo(0).name = "cuda:0";
  t.modules.modules = {Module{"Net", "Net", kNoModule, 0}, Module{"0", "Linear", 0, 4096}, Module{"1", "Linear", 0, 8192}};
  int64_t now = 1000;
  uint64_t addr = 0x100000;
  auto event = [&](Action a, uint64_t at, int64_t size, uint32_t module, Pass pass) {
    Event e;
    e.t_ns = now += 10;
    e.action = a;
    e.addr = at;
    e.size = size;
    e.category = pass == Pass::Backward ? Category::Gradient : Category::Activation;
    e.module = module;
    e.pass = pass;
    t.events.push(e);
  };
  for (int s = 0; s < steps; ++s) {
    std::vector<std::pair<uint64_t, int64_t>> held;
    const int64_t root_begin = now += 100;
    t.phases.push_back(Phase{"forward", PhaseKind::Phase, kAllDevices, kNoRun, now += 5, 0});
    const size_t forward_phase = t.phases.size() - 1;
    for (uint32_t m : {1u, 2u}) {
      const int64_t begin = now += 10;
      for (int k = 0; k < 3; ++k) {
        const int64_t size = 512 * (m * 4 + k);
        event(Action::Alloc, addr, size, m, Pass::Forward);
        if (k == 1) {  // a temporary freed in the call
          event(Action::FreeCompleted, addr, size, m, Pass::Forward);
        } else {
          held.push_back({addr, size});
        }
        addr += 0x1000;
      }
      t.modules.calls.push_back(ModuleCall{m, Pass::Forward, kNoRun, begin, now += 10});
    }
    t.modules.calls.push_back(ModuleCall{0, Pass::Forward, kNoRun, root_begin, now += 10});
    t.phases[forward_phase].end_ns = now;
    t.phases.push_back(Phase{"backward", PhaseKind::Phase, kAllDevices, kNoRun, now += 10, 0});
    for (uint32_t m : {2u, 1u}) {
      const int64_t begin = now += 10;
      event(Action::Alloc, addr, 4096 * m, m, Pass::Backward);
      held.push_back({addr, 4096 * m});
      addr += 0x10000;
      t.modules.calls.push_back(ModuleCall{m, Pass::Backward, kNoRun, begin, now += 20});
    }
    t.phases.back().end_ns = now;
    for (auto [a, size] : held) event(Action::FreeCompleted, a, size, kNoModule, Pass::None);
  }
  return t;
}

Trace tablesOf(const Trace& trace) {
  Trace tables;
  tables.format = trace.format;
  tables.devices = trace.devices;
  tables.stacks = trace.stacks;
  tables.modules.modules = trace.modules.modules;
  return tables;
}

void expectCostsPerStep(const ModuleMemory& got, const ModuleMemory& whole, int steps) {
  ASSERT_TRUE(got.costs_known) << got.costs_unknown;
  EXPECT_NE(got.costs_scope.find("step 0"), std::string::npos) << got.costs_scope;
  ASSERT_EQ(got.rows.size(), whole.rows.size());
  int with_calls = 0;
  for (size_t r = 0; r < whole.rows.size(); ++r) {
    SCOPED_TRACE(whole.rows[r].name);
    for (auto pass : {&ModuleRow::forward, &ModuleRow::backward}) {
      const PassCost &g = got.rows[r].*pass, &w = whole.rows[r].*pass;
      EXPECT_EQ(g.calls * steps, w.calls);
      EXPECT_EQ(g.time_ns * steps, w.time_ns);
      EXPECT_EQ(g.peak_increment, w.peak_increment);
      with_calls += g.calls > 0;
    }
  }
  EXPECT_GE(with_calls, 5);  // Net's forward and backward, each Linear's both
}

TEST(SummaryModuleCosts, TheMomentsStepCostsWhatEachStepOfTheWholeTraceCosts) {
  constexpr int kSteps = 3;
  const Trace trace = steppedTrace(kSteps);
  const ModuleMemory whole = moduleMemoryAt(trace, 0);
  ASSERT_TRUE(whole.unavailable.empty()) << whole.unavailable;
  EXPECT_GT(whole.rows[0].forward.peak_increment, 0);
  const Trace tables = tablesOf(trace);
  auto check = [&](TimelineModel& model) {
    auto moment = momentFromSummaries(model, tables, 0, std::nullopt);
    ASSERT_TRUE(moment.ok()) << moment.error().message;
    auto modules = modulesWithStepCosts(model, tables, *moment);
    ASSERT_TRUE(modules.ok()) << modules.error().message;
    expectCostsPerStep(modules->memory, whole, kSteps);
    EXPECT_GT(modules->table.columnCount(), 11u);  // the cost columns are there
    // A finished step's costs, once found, are not read again for another moment in it.
    StepCosts cache;
    ASSERT_TRUE(modulesWithStepCosts(model, tables, *moment, nullptr, &cache).ok());
    ASSERT_EQ(cache.step, 0);
    cache.scope = "kept";
    auto before = momentFromSummaries(model, tables, 0, moment->position - 1);
    ASSERT_TRUE(before.ok());
    auto again = modulesWithStepCosts(model, tables, *before, nullptr, &cache);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->memory.costs_scope, "kept");
    // The last step too (its span is still open: it runs to the end of the trace).
    const int64_t last = model.device(0)->allocator_points - 1;
    auto late = momentFromSummaries(model, tables, 0, last);
    ASSERT_TRUE(late.ok());
    auto late_modules = modulesWithStepCosts(model, tables, *late);
    ASSERT_TRUE(late_modules.ok()) << late_modules.error().message;
    ASSERT_TRUE(late_modules->memory.costs_known) << late_modules->memory.costs_unknown;
    EXPECT_NE(late_modules->memory.costs_scope.find(fmt::format("step {}", kSteps - 1)), std::string::npos);
    EXPECT_EQ(late_modules->memory.rows[1].forward.time_ns * kSteps, whole.rows[1].forward.time_ns);
  };
  {
    auto source = summary::MemorySource::build(trace);
    ASSERT_TRUE(source.ok());
    TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*source)));
    ASSERT_TRUE(model.refresh().ok());
    SCOPED_TRACE("in memory");
    check(model);
  }
  const std::string path = test::tempPath("module-costs-stepped.sawtooth");
  ASSERT_TRUE(writeNative(trace, path).ok());
  auto place = summariesOf(path);
  ASSERT_TRUE(place.ok()) << place.error().message;
  auto file = native::FileSummarySource::open(*place);
  ASSERT_TRUE(file.ok()) << file.error().message;
  TimelineModel model(std::shared_ptr<summary::SummarySource>(std::move(*file)));
  ASSERT_TRUE(model.refresh().ok());
  SCOPED_TRACE("from the file");
  check(model);
}

// A trace's summaries in memory (the trace kept: they read its events) and its moment at the peak
// of device 0.
struct AtThePeak {
  explicit AtThePeak(Trace t) : trace(std::move(t)), tables(tablesOf(trace)) {
    auto source = summary::MemorySource::build(trace);
    if (!source) throw std::runtime_error(source.error().message);
    model = std::make_unique<TimelineModel>(std::shared_ptr<summary::SummarySource>(std::move(*source)));
    if (!model->refresh()) throw std::runtime_error("refresh");
    auto m = momentFromSummaries(*model, tables, 0, std::nullopt);
    if (!m) throw std::runtime_error(m.error().message);
    moment = std::move(*m);
  }
  Result<ModulesAt> modules(Progress* progress = nullptr) { return modulesWithStepCosts(*model, tables, moment, progress); }

  Trace trace, tables;
  std::unique_ptr<TimelineModel> model;
  SummaryMoment moment;
};

TEST(SummaryModuleCosts, WithoutStepsTheCostsAreNotComputedAndTheReasonIsSaid) {
  Trace trace = steppedTrace(2);
  trace.phases.clear();
  AtThePeak at(trace);
  auto modules = at.modules();
  ASSERT_TRUE(modules.ok()) << modules.error().message;
  EXPECT_FALSE(modules->memory.costs_known);
  EXPECT_NE(modules->memory.costs_unknown.find("marks no steps"), std::string::npos) << modules->memory.costs_unknown;
  EXPECT_EQ(modules->table.columnCount(), 11u);
}

TEST(SummaryModuleCosts, AStepOfTooManyCallsKeepsItsBytesAndSaysWhyItHasNoCosts) {
  Trace trace = steppedTrace(2);
  const int64_t t = trace.phases.front().begin_ns + 1;
  for (size_t i = 0; i <= kMaxStepCostCalls; ++i) trace.modules.calls.push_back(ModuleCall{1, Pass::Forward, kNoRun, t, t});
  AtThePeak at(trace);
  auto modules = at.modules();
  ASSERT_TRUE(modules.ok()) << modules.error().message;
  EXPECT_FALSE(modules->memory.costs_known);
  EXPECT_NE(modules->memory.costs_unknown.find("module calls"), std::string::npos) << modules->memory.costs_unknown;
  EXPECT_EQ(modules->memory.live_bytes, at.moment.live.total);
}

TEST(SummaryModuleCosts, ACancelledReadSaysSo) {
  AtThePeak at(steppedTrace(2));
  std::atomic<bool> cancel{true};
  Progress cancelled({}, &cancel);
  auto modules = at.modules(&cancelled);
  ASSERT_FALSE(modules.ok());
  EXPECT_EQ(modules.error().message, "cancelled");
}

}  // namespace
}  // namespace sawtooth
