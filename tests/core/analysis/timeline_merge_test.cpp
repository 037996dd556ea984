// Several files' timelines as one chart (a distributed run's ranks read from their summaries):
// the overview's devices, extent and totals, what each file is asked for, and the frame merged.

#include <gtest/gtest.h>

#include "core/analysis/live_sources.h"
#include "core/analysis/timeline_merge.h"

namespace sawtooth {
namespace {

TimelineOverview::Device device(DeviceId id, const char* name, int64_t peak) {
  TimelineOverview::Device d;
  d.device = id;
  d.name = name;
  d.kinds = {SeriesKind::Allocated, SeriesKind::Reserved};
  d.peak = peak;
  d.peak_t_ns = 1500;
  return d;
}

// Rank 0 (the first file: its ids kept) with cpu and cuda:0; rank 1 with cuda:0, its id remapped
// as the rows of a second file are (live_sources.h).
TimelinePart rankPart(std::string label, std::vector<TimelineOverview::Device> devices, double x_min_time,
                      double x_max_time, uint64_t events, int64_t max_value, std::vector<std::string> phase_names) {
  TimelinePart part;
  part.label = std::move(label);
  part.overview.devices = std::move(devices);
  part.overview.x_min_time = x_min_time;
  part.overview.x_max_time = x_max_time;
  part.overview.x_max_index = static_cast<double>(events);
  part.overview.events = events;
  part.overview.max_value = max_value;
  part.overview.phase_names = std::move(phase_names);
  return part;
}

std::vector<TimelinePart> twoRanks() {
  LiveSourceMap map;
  std::vector<TimelinePart> parts;
  parts.push_back(rankPart("rank 0", {device(-1, "cpu", 10), device(0, "cuda:0", 100)}, 1000, 5000, 40, 120,
                           {"forward", "backward"}));
  parts.push_back(rankPart("rank 1", {device(0, "cuda:0", 300)}, 800, 4000, 60, 350, {"backward", "optimizer"}));
  for (size_t source = 0; source < parts.size(); ++source)
    for (const auto& d : parts[source].overview.devices)
      parts[source].ids.emplace_back(d.device, map.idOf(source, d.device));
  return parts;
}

TEST(TimelineMerge, TheOverviewHasEachFilesDevicesNamedByTheirFile) {
  const auto parts = twoRanks();
  const TimelineOverview o = mergedOverview(parts);
  ASSERT_EQ(o.devices.size(), 3u);
  EXPECT_EQ(o.devices[0].device, -1);
  EXPECT_EQ(o.devices[0].name, "rank 0 · cpu");
  EXPECT_EQ(o.devices[1].device, 0);
  EXPECT_EQ(o.devices[1].name, "rank 0 · cuda:0");
  EXPECT_EQ(o.devices[2].device, LiveSourceMap::kFirstId);
  EXPECT_EQ(o.devices[2].name, "rank 1 · cuda:0");
  EXPECT_EQ(o.devices[2].peak, 300);
  EXPECT_EQ(o.devices[2].kinds, (std::vector<SeriesKind>{SeriesKind::Allocated, SeriesKind::Reserved}));
  EXPECT_EQ(o.events, 100u);
  EXPECT_EQ(o.max_value, 350);
  EXPECT_EQ(o.x_min_time, 800);
  EXPECT_EQ(o.x_max_time, 5000);
  EXPECT_EQ(o.x_max_index, 5000);  // time only
  EXPECT_EQ(o.phase_names, (std::vector<std::string>{"forward", "backward", "optimizer"}));
}

TEST(TimelineMerge, AFileWithoutDevicesYetLeavesTheExtentAlone) {
  auto parts = twoRanks();
  parts[1].overview = TimelineOverview{};  // its summaries made, nothing committed yet
  parts[1].ids.clear();
  const TimelineOverview o = mergedOverview(parts);
  EXPECT_EQ(o.devices.size(), 2u);
  EXPECT_EQ(o.x_min_time, 1000);
  EXPECT_EQ(o.x_max_time, 5000);
  EXPECT_EQ(o.events, 40u);
}

TEST(TimelineMerge, EachFileIsAskedForItsOwnDevicesOnTime) {
  const auto parts = twoRanks();
  TimelineRequest all;
  all.id = 7;
  all.by_time = false;
  auto first = partRequest(parts[0], all);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->devices, (std::vector<DeviceId>{-1, 0}));  // none named: all of its devices
  EXPECT_TRUE(first->by_time);
  EXPECT_EQ(first->id, 7u);
  TimelineRequest second_only = all;
  second_only.devices = {LiveSourceMap::kFirstId};
  EXPECT_FALSE(partRequest(parts[0], second_only));  // an empty list would mean all of its devices
  auto second = partRequest(parts[1], second_only);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->devices, (std::vector<DeviceId>{0}));
}

TEST(TimelineMerge, TheFrameHasBothFilesLinesAndTheirPhasesOnce) {
  const auto parts = twoRanks();
  TimelineRequest request;
  request.id = 42;
  request.x0 = 0;
  request.x1 = 1000;
  request.columns = 100;  // a column is 10 ns
  request.stacked = true;
  std::vector<PartFrame> frames(2);
  frames[0].part = &parts[0];
  frames[0].frame.lines = {{0, SeriesKind::Allocated, {{0, 1}}}, {0, SeriesKind::Reserved, {}}};
  frames[0].frame.stacks = {{0, {}}};
  frames[0].frame.bands = {{"forward", false, 0, 100}, {"backward", false, 100, 300}};
  frames[0].frame.reads = 5;
  frames[1].part = &parts[1];
  frames[1].frame.lines = {{0, SeriesKind::Allocated, {}}, {9, SeriesKind::Allocated, {}}};  // 9: not in its overview yet
  frames[1].frame.bands = {{"forward", false, 5, 110}, {"backward", false, 305, 320}, {"step", true, 400, 400}};
  frames[1].frame.reads = 7;
  const TimelineFrame f = mergedFrame(request, std::move(frames));
  EXPECT_EQ(f.request.id, 42u);
  EXPECT_TRUE(f.request.sameWindow(request));
  ASSERT_EQ(f.lines.size(), 3u);
  EXPECT_EQ(f.lines[0].device, 0);
  EXPECT_EQ(f.lines[0].points.size(), 1u);
  EXPECT_EQ(f.lines[1].kind, SeriesKind::Reserved);
  EXPECT_EQ(f.lines[2].device, LiveSourceMap::kFirstId);
  ASSERT_EQ(f.stacks.size(), 1u);
  EXPECT_EQ(f.stacks[0].device, 0);
  EXPECT_EQ(f.reads, 12u);
  // Each name's bands joined where they overlap or lie closer than a column; in order of x.
  ASSERT_EQ(f.bands.size(), 3u);
  EXPECT_EQ(f.bands[0].name, "forward");
  EXPECT_EQ(f.bands[0].x0, 0);
  EXPECT_EQ(f.bands[0].x1, 110);
  EXPECT_EQ(f.bands[1].name, "backward");
  EXPECT_EQ(f.bands[1].x0, 100);
  EXPECT_EQ(f.bands[1].x1, 320);
  EXPECT_EQ(f.bands[2].name, "step");
  EXPECT_TRUE(f.bands[2].annotation);
}

}  // namespace
}  // namespace sawtooth
