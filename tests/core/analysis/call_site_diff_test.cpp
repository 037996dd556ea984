#include <gtest/gtest.h>

#include "core/analysis/call_sites.h"
#include "core/analysis/flame_graph.h"
#include "core/analysis/live_allocations.h"
#include "core/analysis/peaks.h"
#include "core/analysis/run_peaks.h"
#include "core/analysis/series.h"
#include "core/analysis/trace_diff.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

Trace load(const std::string& path) {
  auto t = loadTrace(path);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? std::move(*t) : Trace{};
}

std::string sample(const char* name) { return std::string(SAWTOOTH_SAMPLES) + "/" + name; }

int64_t sumA(const TraceDiff& d) {
  int64_t s = 0;
  for (const DiffRow& r : d.rows) s += r.a_bytes;
  return s;
}
int64_t sumB(const TraceDiff& d) {
  int64_t s = 0;
  for (const DiffRow& r : d.rows) s += r.b_bytes;
  return s;
}

TEST(CallSites, TheUsersInnermostFrameNormalised) {
  StackTable stacks;
  const uint32_t lib = stacks.internFrame("forward", "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py", 125);
  const uint32_t user = stacks.internFrame("forward", "/home/ann/project/model.py", 42);
  const uint32_t main = stacks.internFrame("<module>", "/home/ann/project/tools/train.py", 9);
  const uint32_t stdlib = stacks.internFrame("run", "/usr/lib/python3.11/runpy.py", 88);
  const uint32_t cpp = stacks.internFrame("at::empty", "??", 0);
  const uint32_t with_user = stacks.internStack(std::vector<uint32_t>{lib, user, main, stdlib});
  const uint32_t library_only = stacks.internStack(std::vector<uint32_t>{lib, stdlib});
  const uint32_t cpp_only = stacks.internStack(std::vector<uint32_t>{cpp});
  SiteNamer names(stacks);
  EXPECT_EQ(names.site(with_user).label, "model.py:42 forward");
  EXPECT_EQ(names.site(with_user).file, "model.py");
  EXPECT_EQ(names.site(library_only).label, "torch/nn/modules/linear.py:125 forward");
  EXPECT_EQ(names.site(cpp_only).label, "at::empty");
  EXPECT_EQ(names.site(kNoStack).label, kNoStackSite);
  EXPECT_EQ(names.frameLabel(main), "train.py:9 <module>");
  EXPECT_EQ(names.frameLabel(stdlib), "runpy.py:88 run");
  EXPECT_TRUE(isUserFrame(stacks.frame(user)));
  EXPECT_FALSE(isUserFrame(stacks.frame(stdlib)));
}

// A site's name depends on its own file alone: the same line is named the same whatever other
// files the trace holds, and the recorder's own frames are never a site.
TEST(CallSites, KeyedByTheirOwnFileNeverTheRecorders) {
  StackTable alone;
  const uint32_t lone = alone.internFrame("astep", "anchors.py", 39);
  const uint32_t lone_stack = alone.internStack(std::vector<uint32_t>{lone});
  Trace t;
  StackTable& recorded = t.stacks;
  const uint32_t engine = recorded.internFrame("backward", "/venv/lib/python3.11/site-packages/torch/autograd/__init__.py", 374);
  const uint32_t shim = recorded.internFrame("wrapper", "/usr/lib/sawtooth/python/sawtooth_shim/phases.py", 193);
  const uint32_t tensor = recorded.internFrame("backward", "/venv/lib/python3.11/site-packages/torch/_tensor.py", 631);
  const uint32_t user = recorded.internFrame("astep", "/home/ann/seed/anchors.py", 39);
  const uint32_t boot = recorded.internFrame("<module>", "/usr/lib/sawtooth/python/sitecustomize.py", 12);
  const uint32_t stack = recorded.internStack(std::vector<uint32_t>{engine, shim, tensor, user});
  const uint32_t shim_only = recorded.internStack(std::vector<uint32_t>{shim, boot});
  SiteNamer a(alone), b(recorded);
  EXPECT_EQ(a.site(lone_stack).label, "anchors.py:39 astep");
  EXPECT_EQ(b.site(stack).label, "anchors.py:39 astep");
  EXPECT_FALSE(isUserFrame(recorded.frame(shim)));
  EXPECT_TRUE(isRecorderFrame(recorded.frame(boot)));
  EXPECT_EQ(b.site(shim_only).label, kNoStackSite);
  LiveSet live;
  live.allocations = {LiveAllocation{0x10, 64, stack}, LiveAllocation{0x20, 32, shim_only}};
  live.total = 96;
  for (FrameSelection selection : {FrameSelection::All, FrameSelection::Python}) {
    const FlameGraph g = buildFlameGraph(t, live, b, selection);
    EXPECT_EQ(g.nodes[0].bytes, 96);
    for (const FlameNode& n : g.nodes) {
      EXPECT_EQ(n.label.find("sawtooth_shim"), std::string::npos) << n.label;
      EXPECT_EQ(n.label.find("sitecustomize"), std::string::npos) << n.label;
    }
  }
}

// At the peak, the live set, the flame graph and the table all hold exactly the peak's bytes.
TEST(LiveBytes, FlameGraphAndTableSumToThePeak) {
  for (const std::string& path : {test::dataPath("anatomy_adam_snapshot.pickle"), test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"),
                                  test::dataPath("synthetic_window_streams.pickle"), sample("anatomy.sawtooth")}) {
    SCOPED_TRACE(path);
    const Trace t = load(path);
    const Peak peak = findPeak(buildDeviceSeries(t, 0).allocated);
    const ScopePeak scope = scopePeak(t, 0);
    EXPECT_EQ(scope.bytes, peak.value);
    const LiveSet live = liveAllocationsAt(t, 0, scope.position);
    EXPECT_EQ(live.total, peak.value);
    int64_t sum = live.unattributed;
    for (const LiveAllocation& a : live.allocations) sum += a.bytes;
    EXPECT_EQ(sum, peak.value);
    SiteNamer names(t.stacks);
    for (FrameSelection sel : {FrameSelection::All, FrameSelection::Python}) {
      const FlameGraph g = buildFlameGraph(t, live, names, sel);
      EXPECT_EQ(g.nodes[0].bytes, peak.value);
      int64_t children = 0;
      for (uint32_t c : g.nodes[0].children) children += g.nodes[c].bytes;
      EXPECT_EQ(children, peak.value);
      for (const FlameNode& n : g.nodes) {  // a node holds its own bytes and its children's
        int64_t below = n.self_bytes;
        for (uint32_t c : n.children) below += g.nodes[c].bytes;
        EXPECT_EQ(below, n.bytes) << n.label;
      }
    }
    int64_t rows = 0;
    for (const SiteRow& r : siteTable(live, names)) rows += r.bytes;
    EXPECT_EQ(rows, peak.value);
  }
}

TEST(LiveBytes, SnapshotBlocksFromBeforeTheTraceKeepTheirStacks) {
  const Trace t = load(test::dataPath("oom_mlp_snapshot_protocol2.pickle.gz"));
  const LiveSet start = liveAllocationsAt(t, 0, -1);
  SiteNamer names(t.stacks);
  for (const LiveAllocation& a : start.allocations) EXPECT_EQ(names.site(a.stack).label, "fixtures.py:27 mlp");
  const LiveSet end = liveAllocationsAt(t, 0, 1000000);  // clamped to the last event
  EXPECT_EQ(end.unattributed, 0);
  EXPECT_EQ(end.allocations.size(), 8u);
}

TEST(TraceDiff, AFileAgainstItselfIsAllZeros) {
  for (const std::string& path : {test::dataPath("anatomy_adam_snapshot.pickle"), test::dataPath("synthetic_expandable_streams.pickle"),
                                  sample("checkpointing.sawtooth")}) {
    SCOPED_TRACE(path);
    const Trace t = load(path);
    auto d = diffTraces(t, "a", t, "a");
    ASSERT_TRUE(d.ok());
    for (const DiffRow& r : d->rows) {
      EXPECT_EQ(r.growth(), 0) << r.site;
      EXPECT_EQ(r.a_total_allocated, r.b_total_allocated);
    }
    EXPECT_EQ(d->change.delta, 0);
    EXPECT_TRUE(d->change.grew.empty());
    EXPECT_EQ(sumA(*d), d->a.peak_allocated_bytes);
    EXPECT_EQ(d->a.peak_allocated_bytes, findPeak(buildDeviceSeries(t, d->a.device).allocated).value);
  }
}

TEST(TraceDiff, SumsEqualEachSidesPeakAndGrowthIsSorted) {
  const Trace a = load(test::dataPath("synthetic_window_streams.pickle"));
  const Trace b = load(test::dataPath("synthetic_expandable_streams.pickle"));
  auto d = diffTraces(a, "a.pickle", b, "b.pickle");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(sumA(*d), d->a.peak_allocated_bytes);
  EXPECT_EQ(sumB(*d), d->b.peak_allocated_bytes);
  EXPECT_EQ(d->change.delta, d->b.peak_allocated_bytes - d->a.peak_allocated_bytes);
  for (size_t i = 1; i < d->rows.size(); ++i) EXPECT_GE(d->rows[i - 1].growth(), d->rows[i].growth());
  EXPECT_FALSE(d->change.lines.empty());
  EXPECT_NE(d->change.lines[0].find("Peak:"), std::string::npos);
}

// Two runs of one recording (checkpointing: store everything vs recompute every block): each
// side sums to that run's own peak as info reports it.
TEST(TraceDiff, RunsOfOneRecording) {
  const Trace t = load(sample("checkpointing.sawtooth"));
  ASSERT_GE(t.runs.size(), 2u);
  const std::string first = t.runs.front().name, last = t.runs.back().name;
  auto d = diffTraces(t, "rec", t, "rec", first, last);
  ASSERT_TRUE(d.ok()) << d.error().message;
  int64_t peak_first = 0, peak_last = 0;
  for (const RunDevicePeaks& p : runPeaks(t)) {
    if (p.run == 0) peak_first = std::max(peak_first, p.peak_allocated);
    if (p.run == t.runs.size() - 1) peak_last = std::max(peak_last, p.peak_allocated);
  }
  EXPECT_EQ(d->a.peak_allocated_bytes, peak_first);
  EXPECT_EQ(d->b.peak_allocated_bytes, peak_last);
  EXPECT_EQ(sumA(*d), peak_first);
  EXPECT_EQ(sumB(*d), peak_last);
  EXPECT_LT(d->change.delta, 0);  // recomputing keeps less alive
  auto missing = diffTraces(t, "rec", t, "rec", "no such run", last);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no run 'no such run'"), std::string::npos);
}

// PyTorch's own snapshot of a program and Sawtooth's recording of the same program, diffed: every
// site matches and nothing changes. A real pair needs a CUDA device (PyTorch's snapshots are of
// CUDA memory only), so the recording is made from the committed snapshot the way the recorder
// sees that program: the script run by its full path, the shim's wrapper around
// torch.autograd.backward on the stacks that pass through it, the shim's own files among the
// trace's frames, and every allocation given a category (the snapshot has none).
Trace asRecorded(const Trace& snapshot) {
  Trace r = snapshot;
  StackTable stacks;
  const StackTable& in = snapshot.stacks;
  const uint32_t wrapper = stacks.internFrame("wrapper", "/usr/lib/sawtooth/python/sawtooth_shim/phases.py", 193);
  (void)stacks.internFrame("record", "/usr/lib/sawtooth/python/sawtooth_shim/channel.py", 300);
  std::vector<uint32_t> frames(in.frameCount());
  for (uint32_t f = 0; f < in.frameCount(); ++f) {
    const FrameView v = in.frame(f);
    const std::string file = v.file == "anchors.py" ? "/home/ann/seed/anchors.py" : std::string(v.file);
    frames[f] = stacks.internFrame(v.name, file, v.line);
  }
  std::vector<uint32_t> stack_map(in.stackCount());
  for (uint32_t s = 0; s < in.stackCount(); ++s) {
    std::vector<uint32_t> ids;
    for (uint32_t f : in.stack(s)) {
      ids.push_back(frames[f]);
      const FrameView v = in.frame(f);
      if (v.name == "backward" && v.file.ends_with("torch/autograd/__init__.py")) ids.push_back(wrapper);
    }
    stack_map[s] = stacks.internStack(ids);
  }
  r.stacks = std::move(stacks);
  for (size_t i = 0; i < r.events.size(); ++i) {
    if (r.events.stack()[i] != kNoStack) r.events.setStack(i, stack_map[r.events.stack()[i]]);
    r.events.setCategory(i, r.events.stack()[i] == kNoStack ? Category::Gradient : Category::Activation);
  }
  for (SnapshotSegment& seg : r.segments) {
    if (seg.stack != kNoStack) seg.stack = stack_map[seg.stack];
    for (SnapshotBlock& b : seg.blocks)
      if (b.stack != kNoStack) b.stack = stack_map[b.stack];
  }
  return r;
}

TEST(TraceDiff, ASnapshotAndARecordingOfOneProgramMatchSiteBySite) {
  const Trace snapshot = load(test::dataPath("anatomy_adam_snapshot.pickle"));
  const Trace recording = asRecorded(snapshot);
  auto d = diffTraces(snapshot, "anchors.pickle", recording, "anchors.sawtooth");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->by_category);  // the snapshot has no categories: rows are by site alone
  EXPECT_EQ(d->change.delta, 0);
  size_t anchors = 0;
  for (const DiffRow& r : d->rows) {
    EXPECT_EQ(r.growth(), 0) << r.site;
    EXPECT_EQ(r.a_total_allocated, r.b_total_allocated) << r.site;
    EXPECT_EQ(r.a_count, r.b_count) << r.site;
    EXPECT_EQ(r.category, Category::Unknown);
    EXPECT_EQ(r.site.find("sawtooth_shim"), std::string::npos);
    anchors += r.site.starts_with("anchors.py:") ? 1 : 0;
  }
  EXPECT_GE(anchors, 2u);  // astep's lines 39 and 40
  EXPECT_EQ(d->change.lines.back(), "Every call site holds the same bytes at both peaks.");
}

}  // namespace
}  // namespace sawtooth
