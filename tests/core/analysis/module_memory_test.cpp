#include <gtest/gtest.h>

#include "core/analysis/flame_layout.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/module_band.h"
#include "core/analysis/module_icicle.h"
#include "core/analysis/module_memory.h"
#include "core/analysis/trace_diff.h"
#include "core/io/module_json.h"
#include "core/io/trace_loader.h"
#include "tests/core/module_trace.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

const ModuleRow& row(const ModuleMemory& m, std::string_view name) {
  for (const ModuleRow& r : m.rows)
    if (r.name == name) return r;
  ADD_FAILURE() << "no row " << name;
  static const ModuleRow none;
  return none;
}

int64_t sumOfOwn(const ModuleMemory& m) {
  int64_t sum = 0;
  for (const ModuleRow& r : m.rows) sum += r.self.total();
  return sum;
}

TEST(ModuleMemory, AtThePeakEveryByteHasItsModule) {
  const Trace t = test::moduleTrace();
  const ModuleMemory m = moduleMemoryAt(t, 0);
  EXPECT_TRUE(m.unavailable.empty());
  EXPECT_TRUE(m.at_peak);
  EXPECT_EQ(m.position, 12);
  EXPECT_EQ(m.live_bytes, 4250);
  EXPECT_EQ(sumOfOwn(m), 4250);
  ASSERT_EQ(m.rows.size(), 5u);  // four modules, then the outside row
  EXPECT_EQ(m.rows[0].name, "Net");
  EXPECT_EQ(m.rows[1].name, "Net.0");
  EXPECT_EQ(m.rows[4].name, kOutsideModules);

  const ModuleRow& first = row(m, "Net.0");
  EXPECT_EQ(first.self[Category::Parameter], 400);
  EXPECT_EQ(first.self[Category::Gradient], 400);
  EXPECT_EQ(first.self[Category::Activation], 1000);
  EXPECT_EQ(first.self[Category::Temporary], 2000);
  EXPECT_EQ(first.allocations, 4);
  EXPECT_EQ(first.depth, 1);
  EXPECT_EQ(first.declared_parameter_bytes, 400);
  const ModuleRow& last = row(m, "Net.2");
  EXPECT_EQ(last.self[Category::Parameter], 200);
  EXPECT_EQ(last.self[Category::Gradient], 200);
  EXPECT_EQ(last.self[Category::Activation], 0);  // freed in its backward
  EXPECT_EQ(row(m, "Net.1").self.total(), 0);
  EXPECT_EQ(row(m, "Net").self.total(), 0);
  EXPECT_EQ(row(m, "Net").total.total(), 4200);
  EXPECT_EQ(row(m, kOutsideModules).self.total(), 50);
  EXPECT_EQ(m.headline, "At the peak on cuda:0 (after allocator event 12, backward of Net.0): 4.2 kB alive, 4.2 kB "
                        "of it in 2 modules and 50 B outside modules");
  EXPECT_EQ(m.at_pass, "backward");
  EXPECT_EQ(m.at_module, "Net.0");
}

TEST(ModuleMemory, PassCostsFromTheCalls) {
  const ModuleMemory m = moduleMemoryAt(test::moduleTrace(), 0);
  const ModuleRow& first = row(m, "Net.0");
  EXPECT_EQ(first.forward.calls, 1);
  EXPECT_EQ(first.forward.time_ns, 9);
  EXPECT_EQ(first.forward.peak_increment, 1500);  // 600 when it began, 2100 at most
  EXPECT_EQ(first.backward.time_ns, 9);
  EXPECT_EQ(first.backward.peak_increment, 2400);  // 1850 -> 4250
  const ModuleRow& net = row(m, "Net");
  EXPECT_EQ(net.forward.peak_increment, 1500);
  EXPECT_EQ(net.forward.time_ns, 30);
  EXPECT_EQ(net.backward.peak_increment, 2200);  // 2050 when its backward began
  EXPECT_EQ(row(m, "Net.1").forward.peak_increment, 300);
  EXPECT_EQ(row(m, "Net.1").backward.peak_increment, 0);  // it only frees
  EXPECT_EQ(row(m, kOutsideModules).forward.calls, 0);
}

// Where autograd's link attributed backward (the native tracker, the workloads) there are no
// backward calls: a module's backward is the stretch of its (and its submodules') backward events.
TEST(ModuleMemory, BackwardTimeFromTheBackwardEventsWhereThereAreNoBackwardCalls) {
  Trace t = test::moduleTrace();
  std::erase_if(t.modules.calls, [](const ModuleCall& c) { return c.pass == Pass::Backward; });
  const ModuleMemory m = moduleMemoryAt(t, 0);
  const ModuleRow& first = row(m, "Net.0");
  EXPECT_EQ(first.backward.calls, 1);
  EXPECT_EQ(first.backward.time_ns, 3);            // its events at 67 .. 70, the trace's last
  EXPECT_EQ(first.backward.peak_increment, 2400);  // 1850 -> 4250
  EXPECT_EQ(row(m, "Net.2").backward.time_ns, 9);  // 52 .. 61, until Net.1's backward begins at 62
  EXPECT_EQ(row(m, "Net.1").backward.calls, 1);
  EXPECT_EQ(row(m, "Net.1").backward.time_ns, 4);  // one event, at 62, until Net.0's at 67
  const ModuleRow& net = row(m, "Net");
  EXPECT_EQ(net.backward.calls, 1);
  EXPECT_EQ(net.backward.time_ns, 18);  // its submodules' backward, 52 .. 70
  EXPECT_EQ(net.backward.peak_increment, 2200);
  EXPECT_EQ(row(m, kOutsideModules).backward.calls, 0);

  // A second step: each module's backward is a stretch of its own after its second forward.
  Trace two = t;
  for (ModuleCall c : t.modules.calls) {
    c.begin_ns += 100;
    c.end_ns += 100;
    two.modules.calls.push_back(c);
  }
  for (size_t i = 0; i < t.events.size(); ++i) {
    Event e = t.events.at(i);
    if (e.pass != Pass::Forward && e.pass != Pass::Backward) continue;
    e.t_ns += 100;
    e.addr += 0x100000;
    two.events.push(e);
  }
  const ModuleMemory m2 = moduleMemoryAt(two, 0);
  EXPECT_EQ(row(m2, "Net.0").backward.calls, 2);
  EXPECT_EQ(row(m2, "Net.0").backward.time_ns, 6);
  EXPECT_EQ(row(m2, "Net").backward.time_ns, 36);

  // A module never called itself (a ModuleList, its blocks called by its parent): a backward
  // stretch a step, counted by its parent's forward calls, not one over the whole run.
  Trace container = two;
  std::erase_if(container.modules.calls, [](const ModuleCall& c) { return c.module == 2 && c.pass == Pass::Forward; });
  const ModuleMemory m3 = moduleMemoryAt(container, 0);
  EXPECT_EQ(row(m3, "Net.1").backward.calls, 2);
  EXPECT_EQ(row(m3, "Net.1").backward.time_ns, row(m2, "Net.1").backward.time_ns);
}

// A tied weight's gradient (GPT-2's wte, shared with lm_head) is made by the module whose backward
// uses it, in the middle of that module's run: its bytes stay its owner's, its time does not make
// the owner's backward span everything from there (the GPT-2 sample's wte read the whole backward).
TEST(ModuleMemory, ATiedWeightsGradientIsNotItsOwnersBackwardTime) {
  Trace t = test::moduleTrace();
  std::erase_if(t.modules.calls, [](const ModuleCall& c) { return c.pass == Pass::Backward; });
  Trace tied = t;
  tied.events = EventStore{};
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event e = t.events.at(i);
    tied.events.push(e);
    if (e.t_ns == 52) {  // Net.2's backward begins, and makes Net.0's (tied) weight's gradient first
      Event gradient = e;
      gradient.addr = 0xb000;
      gradient.size = 400;
      gradient.module = 1;
      tied.events.push(gradient);
    }
  }
  const ModuleMemory m = moduleMemoryAt(tied, 0);
  EXPECT_EQ(row(m, "Net.0").backward.calls, 1);
  EXPECT_EQ(row(m, "Net.0").backward.time_ns, 3);  // 67 .. 70, as without the tied gradient (not 52 .. 70)
  EXPECT_EQ(row(m, "Net.2").backward.time_ns, 9);
  EXPECT_EQ(row(m, "Net.0").self.bytes[static_cast<size_t>(Category::Gradient)], 800);  // both its gradients
}

// A call's median beside the sum: the program's first step carries its warm-up (cuBLAS and the
// allocator's first segments), so a block's summed forward time over a short recording is mostly
// one call's; the median is what a call takes.
TEST(ModuleMemory, ACallsMedianTimeIsNotTheWarmUpsSum) {
  Trace t = test::moduleTrace();
  ModuleCall first;
  for (const ModuleCall& c : t.modules.calls)
    if (c.module == 1 && c.pass == Pass::Forward) first = c;  // Net.0's forward: 9 ns
  ASSERT_EQ(first.end_ns - first.begin_ns, 9);
  // Three more forwards of Net.0 after the trace, of 10, 11 and 1000 ns.
  int64_t at = 1000;
  for (int64_t ns : {10, 11, 1000}) {
    ModuleCall c = first;
    c.begin_ns = at;
    c.end_ns = at + ns;
    at += 2000;
    t.modules.calls.push_back(c);
  }
  const ModuleMemory m = moduleMemoryAt(t, 0);
  const ModuleRow& net0 = row(m, "Net.0");
  EXPECT_EQ(net0.forward.calls, 4);
  EXPECT_EQ(net0.forward.time_ns, 9 + 10 + 11 + 1000);
  EXPECT_EQ(net0.forward.median_ns, 10);  // the lower median of 9, 10, 11, 1000: a call that happened
  EXPECT_EQ(row(m, "Net.1").forward.median_ns, row(m, "Net.1").forward.time_ns);  // one call
  EXPECT_EQ(row(m, kOutsideModules).forward.median_ns, 0);

  // The CLI's table shows the median (0.00 ms here), its JSON both.
  const auto j = nlohmann::json::parse(modulesJson(t, "net.sawtooth", m, -1));
  bool found = false;
  for (const auto& r : j["modules"])
    if (r["name"] == "Net.0") {
      found = true;
      EXPECT_EQ(r["forward"]["median_ns"], 10);
      EXPECT_EQ(r["forward"]["time_ns"], 1030);
    }
  EXPECT_TRUE(found) << j.dump().substr(0, 600);
  EXPECT_NE(modulesText(m, -1).find("ms: one call's, the median of its calls"), std::string::npos);
}

TEST(ModuleBand, TheTopLevelBlocksCallsOnBothAxes) {
  const TraceAnalysis a(std::make_shared<const Trace>(test::moduleTrace()));
  const ModuleBand band = moduleBand(a, 0);
  ASSERT_EQ(band.blocks.size(), 3u);  // Net's three children, one level below the root
  EXPECT_EQ(band.blocks[0].name, "Net.0");
  EXPECT_EQ(band.blocks[0].label, "0");
  EXPECT_EQ(band.blocks[2].name, "Net.2");
  ASSERT_EQ(band.spans.size(), 6u);
  const BandSpan& first = band.spans[0];
  EXPECT_EQ(band.blocks[first.block].name, "Net.0");
  EXPECT_EQ(first.pass, Pass::Forward);
  EXPECT_EQ(first.begin_ns, 11);
  EXPECT_EQ(first.end_ns, 20);
  EXPECT_EQ(first.begin_index, 2);  // the first allocator event at or after t = 11 (t = 12)
  EXPECT_EQ(first.end_index, 5);    // t = 22
  const BandSpan& last = band.spans[5];
  EXPECT_EQ(band.blocks[last.block].name, "Net.0");
  EXPECT_EQ(last.pass, Pass::Backward);
  EXPECT_EQ(last.begin_ns, 66);

  // Without backward calls the band shows backward's stretches (module_memory.h).
  Trace t = test::moduleTrace();
  std::erase_if(t.modules.calls, [](const ModuleCall& c) { return c.pass == Pass::Backward; });
  const ModuleBand stretches = moduleBand(TraceAnalysis(std::make_shared<const Trace>(t)), 0);
  ASSERT_EQ(stretches.spans.size(), 6u);
  EXPECT_EQ(stretches.spans[5].pass, Pass::Backward);
  EXPECT_EQ(stretches.spans[5].begin_ns, 67);
  EXPECT_EQ(stretches.spans[5].end_ns, 70);

  // A trace without modules has no band.
  EXPECT_TRUE(moduleBand(TraceAnalysis(std::make_shared<const Trace>(Trace{})), 0).blocks.empty());
}

TEST(ModuleMemory, AtAnyEventTheRowsSumToTheLiveBytes) {
  const Trace t = test::moduleTrace();
  for (int64_t position = -1; position < 15; ++position) {
    const ModuleMemory m = moduleMemoryAt(t, 0, position);
    EXPECT_FALSE(m.at_peak);
    EXPECT_EQ(m.live_bytes, liveAllocationsAt(t, 0, position).total);
    EXPECT_EQ(sumOfOwn(m), m.live_bytes) << position;
    // The roots' totals and the outside row are every live byte.
    int64_t roots = 0;
    for (const ModuleRow* r : rowsToDepth(m, 0)) roots += r->total.total();
    EXPECT_EQ(roots, m.live_bytes);
  }
}

TEST(ModuleMemory, TheIcicleHoldsTheLiveBytes) {
  const ModuleMemory m = moduleMemoryAt(test::moduleTrace(), 0);
  const ModuleIcicle icicle = buildModuleIcicle(m);
  const FlameGraph& g = icicle.graph;
  ASSERT_FALSE(g.nodes.empty());
  EXPECT_EQ(g.nodes[0].bytes, 4250);
  for (const FlameNode& n : g.nodes) {
    int64_t below = 0;
    for (uint32_t c : n.children) below += g.nodes[c].bytes;
    if (!n.children.empty()) {
      EXPECT_EQ(below, n.bytes) << n.label;
    }
  }
  // "0" holds four category leaves; the largest is its backward temporary.
  uint32_t first = UINT32_MAX;
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].label == "0") first = i;
  ASSERT_NE(first, UINT32_MAX);
  ASSERT_EQ(g.nodes[first].children.size(), 4u);
  const uint32_t top = g.nodes[first].children.front();
  EXPECT_EQ(g.nodes[top].label, "temporary");
  EXPECT_EQ(icicle.category[top], Category::Temporary);
  EXPECT_EQ(m.rows[icicle.row[top]].name, "Net.0");
  const auto rects = layoutFlame(g);
  EXPECT_EQ(rects.front().node, 0u);
  EXPECT_EQ(flameDepth(rects), 4);  // (all), Net, 0, temporary
}

TEST(ModuleMemory, SnapshotsAndOldRecordingsSayWhyThereAreNone) {
  auto snapshot = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(snapshot.ok());
  const ModuleMemory m = moduleMemoryAt(*snapshot, 0);
  EXPECT_TRUE(m.rows.empty());
  EXPECT_NE(m.unavailable.find("PyTorch's memory snapshots record no modules"), std::string::npos);
  EXPECT_NE(m.unavailable.find("--modules on"), std::string::npos) << m.unavailable;
  auto old = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  ASSERT_TRUE(old.ok());
  EXPECT_NE(modulesUnavailableReason(*old).find("this recording has no modules"), std::string::npos);
}

// Module tracking is off unless --modules on says otherwise: the reason says how.
TEST(ModuleMemory, ARecordingWithTrackingOffSaysHowToTurnItOn) {
  auto recorded = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  ASSERT_TRUE(recorded.ok());
  recorded->modules = ModuleTree{};
  recorded->meta["modules"] = "off";
  const std::string reason = modulesUnavailableReason(*recorded);
  EXPECT_NE(reason.find("module tracking was off"), std::string::npos) << reason;
  EXPECT_NE(reason.find("--modules on"), std::string::npos) << reason;
}

// A program sawtooth-record recorded without modules can be recorded again with them: its command
// line and folder, from the file's meta (data: anything but a list of strings is not offered).
TEST(ModuleMemory, AProgramRecordedWithoutModulesCanBeRecordedAgain) {
  auto recorded = loadTrace(std::string(SAWTOOTH_SAMPLES) + "/anatomy.sawtooth");
  ASSERT_TRUE(recorded.ok());
  recorded->modules = ModuleTree{};
  recorded->meta["modules"] = "off";
  recorded->meta["command"] = R"(["python", "train.py", "--lr", "3e-4 x"])";
  recorded->meta["cwd"] = "/home/me/model";
  recorded->meta["env.PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
  recorded->meta["env.BAD NAME"] = "x";     // not an environment entry
  recorded->meta["env.OMP_NUM_THREADS"] = "4\nX=1";  // nor a value of one line
  const ModuleMemory m = moduleMemoryAt(*recorded, 0);
  EXPECT_FALSE(m.unavailable.empty());
  EXPECT_EQ(m.record_again.argv, (std::vector<std::string>{"python", "train.py", "--lr", "3e-4 x"}));
  EXPECT_EQ(m.record_again.cwd, "/home/me/model");
  EXPECT_EQ(m.record_again.environment, std::vector<std::string>{"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"});
  for (const char* hostile : {"", "python train.py", "[]", "[\"\"]", "[\"python\", 3]", "{\"a\": 1}", "[[\"x\"]]", "[\"x\""}) {
    recorded->meta["command"] = hostile;
    EXPECT_TRUE(programToRecordWithModules(*recorded).argv.empty()) << hostile;
  }
  recorded->meta["command"] = R"(["python", "train.py"])";
  recorded->meta["modules"] = "on";  // tracked, and none ran: nothing to gain from recording again
  EXPECT_TRUE(programToRecordWithModules(*recorded).argv.empty());
  recorded->meta.erase("modules");  // a workload, or a recording from before the switch
  EXPECT_TRUE(programToRecordWithModules(*recorded).argv.empty());
}

TEST(ModuleMemory, JsonRowsAndDepth) {
  const Trace t = test::moduleTrace();
  const ModuleMemory m = moduleMemoryAt(t, 0);
  auto j = nlohmann::json::parse(modulesJson(t, "net.sawtooth", m, 0));
  EXPECT_EQ(j["live_bytes"], 4250);
  EXPECT_EQ(j["event_index"], 12);
  ASSERT_EQ(j["modules"].size(), 2u);  // the root and the outside row
  EXPECT_EQ(j["modules"][0]["name"], "Net");
  EXPECT_EQ(j["modules"][0]["total"]["total"], 4200);
  EXPECT_EQ(j["modules"][0]["total"]["temporary"], 2000);
  EXPECT_EQ(j["modules"][1]["name"], "(outside modules)");
  EXPECT_EQ(j["modules"][1]["self"]["unknown"], 50);
  j = nlohmann::json::parse(modulesJson(t, "net.sawtooth", m, -1));
  ASSERT_EQ(j["modules"].size(), 5u);
  EXPECT_EQ(j["modules"][1]["parent"], "Net");
  EXPECT_EQ(j["modules"][1]["backward"]["peak_increment"], 2400);
  EXPECT_EQ(j["modules"][1]["class"], "Linear");
}

TEST(ModuleDiff, ByModuleNameAndCategory) {
  const Trace a = test::moduleTrace();
  Trace b = test::moduleTrace();
  b.events.setModule(12, 3, Pass::Backward);  // the big temporary now "2"'s
  auto d = diffTraces(a, "a", b, "b", {}, {}, DiffBy::Module);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->by, DiffBy::Module);
  EXPECT_TRUE(d->by_category);
  ASSERT_FALSE(d->rows.empty());
  EXPECT_EQ(d->rows.front().site, "Net.2");
  EXPECT_EQ(d->rows.front().category, Category::Temporary);
  EXPECT_EQ(d->rows.front().growth(), 2000);
  EXPECT_EQ(d->rows.back().site, "Net.0");
  EXPECT_EQ(d->rows.back().growth(), -2000);
  int64_t a_sum = 0, b_sum = 0;
  for (const DiffRow& r : d->rows) {
    a_sum += r.a_bytes;
    b_sum += r.b_bytes;
  }
  EXPECT_EQ(a_sum, 4250);
  EXPECT_EQ(b_sum, 4250);
}

TEST(ModuleDiff, ATraceWithoutModulesIsRefusedWithTheReason) {
  auto snapshot = loadTrace(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(snapshot.ok());
  auto d = diffTraces(test::moduleTrace(), "a", *snapshot, "b.pickle", {}, {}, DiffBy::Module);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("b.pickle: PyTorch's memory snapshots record no modules"), std::string::npos);
}

}  // namespace
}  // namespace sawtooth
