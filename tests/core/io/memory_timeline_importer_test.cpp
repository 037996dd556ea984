// torch.profiler memory timelines: the fixtures against the independent reader's numbers, every
// time point of the plot form as a state of the imported trace, the raw form's version bumps, and
// malformed files.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/analysis/category_series.h"
#include "core/analysis/trace_summary.h"
#include "core/io/file_bytes.h"
#include "core/io/memory_timeline_importer.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

using test::dataPath;
using test::expectedInfo;

// PyTorch's category order (_CATEGORY_TO_INDEX), the plot form's columns 1..8.
const Category kColumns[] = {Category::Parameter, Category::OptimizerState, Category::Input,
                             Category::Temporary, Category::Activation,     Category::Gradient,
                             Category::AutogradDetail, Category::Unknown};

Trace load(const std::string& fixture) {
  auto trace = loadTrace(dataPath(fixture));
  EXPECT_TRUE(trace) << (trace ? "" : trace.error().message);
  return trace ? std::move(*trace) : Trace{};
}

Result<Trace> importText(const std::string& json) { return importMemoryTimeline(json); }

class Fixture : public testing::TestWithParam<const char*> {};

TEST_P(Fixture, MatchesTheIndependentReading) {
  const Trace trace = load(GetParam());
  const auto expected = expectedInfo(GetParam());
  EXPECT_EQ(trace.format, "torch-memory-timeline");
  EXPECT_EQ(trace.events.size(), expected.at("events").get<size_t>());
  const TraceSummary summary = summarize(trace);
  ASSERT_EQ(summary.devices.size(), 1u);
  const auto& device = summary.devices[0];
  const auto& want = expected.at("devices")[0];
  EXPECT_EQ(device.device, 0);
  EXPECT_EQ(device.peak_allocated.value, want.at("peak_allocated_bytes").get<int64_t>());
  EXPECT_EQ(device.final_allocated, want.at("final_allocated_bytes").get<int64_t>());
  EXPECT_TRUE(device.has_categories);
  for (int c = 0; c < kCategoryCount; ++c) {
    const std::string category(name(static_cast<Category>(c)));
    EXPECT_EQ(device.category_peaks[static_cast<size_t>(c)], want.at("category_peaks").at(category).get<int64_t>()) << category;
  }
}

INSTANTIATE_TEST_SUITE_P(MemoryTimeline, Fixture,
                         testing::Values("anatomy_adam_memory_timeline.raw.json", "anatomy_cpu_memory_timeline.json.gz",
                                         "anatomy_cpu_memory_timeline.raw.json.gz"));

// Read here with nlohmann::json (the importer uses simdjson): each time point's events are one per
// category that changed, at that point's time, and after them every category holds exactly the
// bytes the file gives for that point.
TEST(MemoryTimeline, EveryTimePointOfThePlotFormIsAStateOfTheTrace) {
  for (const char* fixture : {"anatomy_adam_memory_timeline.raw.json", "anatomy_cpu_memory_timeline.json.gz"}) {
    const auto doc = nlohmann::json::parse(readMaybeGzip(dataPath(fixture)).value());
    const auto& times = doc[0];
    const auto& sizes = doc[1];
    const Trace trace = load(fixture);
    const CategoryTimeline timeline = buildCategoryTimeline(trace, 0);
    const auto& t = trace.events.tNs();
    size_t event = 0;
    for (size_t row = 0; row < sizes.size(); ++row) {
      const int64_t row_ns = (times[row].get<int64_t>() - times[0].get<int64_t>()) * 1000;
      size_t changed = 0;
      for (size_t k = 1; k < 9; ++k) changed += sizes[row][k] != (row ? sizes[row - 1][k] : nlohmann::json(0));
      for (size_t i = 0; i < changed; ++i, ++event) {
        ASSERT_LT(event, trace.events.size());
        ASSERT_EQ(t[event], row_ns) << fixture << " row " << row;
      }
      if (event == 0) continue;
      for (size_t k = 0; k < 8; ++k)
        ASSERT_EQ(timeline.live[static_cast<size_t>(kColumns[k])][event - 1], sizes[row][k + 1].get<int64_t>())
            << fixture << " row " << row << " column " << k + 1;
    }
    EXPECT_EQ(event, trace.events.size());
  }
}

TEST(MemoryTimeline, ThePlotFormsDecreasesComeFirstSoNoFalsePeak) {
  // parameter 100 → 0 and activation 0 → 100 at one time point: the total never reaches 200.
  auto trace = importText("[[10, 20], [[0, 100, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 100, 0, 0, 0]]]");
  ASSERT_TRUE(trace) << trace.error().message;
  const TraceSummary s = summarize(*trace);
  EXPECT_EQ(s.devices[0].peak_allocated.value, 100);
  ASSERT_EQ(trace->events.size(), 3u);
  EXPECT_EQ(trace->events.action()[1], Action::FreeCompleted);
  EXPECT_EQ(trace->events.category()[1], Category::Parameter);
  EXPECT_EQ(trace->events.action()[2], Action::Alloc);
  EXPECT_EQ(trace->events.category()[2], Category::Activation);
  EXPECT_EQ(trace->events.tNs()[2], 10'000);  // µs in the file
}

TEST(MemoryTimeline, TheLimitsBoundTheImport) {
  std::string text = "[";
  for (int i = 0; i < 20000; ++i) text += fmt::format("{}[{}, 2, {}, 5]", i ? ", " : "", 1000 + i, i % 2 ? -32 : 32);
  text += "]";
  ReadLimits few;
  few.max_events = 100;
  auto counted = loadTraceFromBytes(text, "timeline.raw.json", nullptr, few);
  ASSERT_FALSE(counted.ok());
  EXPECT_NE(counted.error().message.find("more than 100 events"), std::string::npos) << counted.error().message;
  ReadLimits small;
  small.max_memory = 256 << 10;
  auto tiny = loadTraceFromBytes(text, "timeline.raw.json", nullptr, small);
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.error().message.find("memory"), std::string::npos) << tiny.error().message;
  EXPECT_TRUE(loadTraceFromBytes(text, "timeline.raw.json").ok());
}

TEST(MemoryTimeline, RawVersionBumpsWithinACategoryMoveNothing) {
  // create a gradient (5), a new version of it stays a gradient, another turns it into an
  // autograd detail (6), then it is destroyed.
  auto trace = importText(
      "[[-1, 1, 64, 0], [1000, 2, 32, 5], [2000, 3, -32, 5], [2000, 3, 32, 5], [3000, 3, -32, 5], [3000, 3, 32, 6],"
      " [4000, 4, -32, 6]]");
  ASSERT_TRUE(trace) << trace.error().message;
  ASSERT_EQ(trace->events.size(), 5u);
  EXPECT_EQ(trace->meta.at("memory_timeline.version_bumps_within_a_category"), "1");
  EXPECT_EQ(trace->events.tNs()[0], 0);      // pre-existing: the first time
  EXPECT_EQ(trace->events.tNs()[1], 0);      // 1000 ns is the first real time
  EXPECT_EQ(trace->events.tNs()[4], 3000);   // ns in the raw form
  EXPECT_EQ(trace->events.category()[0], Category::Parameter);
  EXPECT_EQ(trace->events.category()[2], Category::Gradient);
  EXPECT_EQ(trace->events.category()[3], Category::AutogradDetail);
  const CategoryPeaks peaks = categoryPeaks(*trace, 0);
  EXPECT_EQ(peaks.peak[static_cast<size_t>(Category::Gradient)], 32);
  EXPECT_EQ(peaks.peak[static_cast<size_t>(Category::AutogradDetail)], 32);
  EXPECT_EQ(summarize(*trace).devices[0].final_allocated, 64);
}

TEST(MemoryTimeline, DetectedByContent) {
  EXPECT_TRUE(looksLikeMemoryTimeline(" [ [1, 2], [[0,0,0,0,0,0,0,0,0]]]"));
  EXPECT_FALSE(looksLikeMemoryTimeline("[{\"name\": \"x\"}]"));
  EXPECT_FALSE(looksLikeMemoryTimeline("{\"traceEvents\": []}"));
  EXPECT_EQ(detectFormat("[[1], [[0,0,0,0,0,0,0,0,0]]]"), TraceFormat::MemoryTimeline);
  EXPECT_EQ(detectFormat("[{\"ph\": \"X\"}]"), TraceFormat::ProfilerTrace);
}

struct Bad {
  const char* json;
  const char* message;
};

TEST(MemoryTimeline, MalformedFilesSayWhatIsWrongAndWhere) {
  const Bad cases[] = {
      {"[[1, 2], [[0,1,2,3,4,5,6,7,8]]]", "2 times but 1 rows"},
      {"[[1], [[0,1,2]]]", "sizes[0] is [0,1,2]"},
      {"[[1], [[5,0,0,0,0,0,0,0,0]]]", "sizes[0][0] is 5"},
      {"[[1], [[0,0,\"x\",0,0,0,0,0,0]]]", "sizes[0][2] is \"x\""},
      {"[[1], [[0,0,1.5,0,0,0,0,0,0]]]", "not a whole number"},
      {"[[\"t\"], [[0,0,0,0,0,0,0,0,0]]]", "times[0]"},
      {"[[], []]", "without time points"},
      {"[[1, 9, 4, 0]]", "action 9"},
      {"[[1, 2, 4, 8]]", "category 8"},
      {"[[1, 2, 4]]", "event 0 is [1,2,4]"},
      {"[[1, 2, 4, 0], 7]", "event 1 is 7"},
      {"[[1, 2, 4, 0], [", "not valid JSON"},
      {"[[-9000000000000000000], [[0,0,0,0,0,0,0,0,0]]]", ""},
      {"[[0, 9000000000000000], [[0,0,0,0,0,0,0,0,0], [0,0,0,0,0,0,0,0,0]]]", "too far"},
  };
  for (const Bad& b : cases) {
    auto trace = importText(b.json);
    if (std::string(b.message).empty()) continue;  // only: no crash
    ASSERT_FALSE(trace) << b.json;
    EXPECT_NE(trace.error().message.find(b.message), std::string::npos) << b.json << " → " << trace.error().message;
  }
}

TEST(MemoryTimeline, NegativeSizesAreKeptAndFlagged) {
  auto trace = importText("[[1, 2], [[0,0,0,0,0,0,0,0,5], [0,0,0,0,0,0,0,0,-3]]]");
  ASSERT_TRUE(trace) << trace.error().message;
  EXPECT_NE(trace->meta.at("warnings").find("negative"), std::string::npos);
  EXPECT_EQ(summarize(*trace).devices[0].final_allocated, -3);
}

TEST(MemoryTimeline, EveryTruncationOfAFixtureIsAnErrorOrATrace) {
  const std::string json = readMaybeGzip(dataPath("anatomy_cpu_memory_timeline.raw.json.gz")).value();
  for (size_t n = 0; n < json.size(); n += 97) {
    auto trace = loadTraceFromBytes(json.substr(0, n), "cut");
    if (!trace) {
      EXPECT_FALSE(trace.error().message.empty());
    }
  }
}

TEST(MemoryTimeline, TheHtmlExportIsRefusedWithWhatToExportInstead) {
  const std::string html =
      "<html>\n<head><meta charset=\"utf-8\" /><title>GPU Memory Timeline HTML</title></head>\n<body>\n"
      "  <img src='data:image/png;base64,iVBORw0KGgo='>\n</body>\n</html>";
  auto trace = loadTraceFromBytes(html, "memory.html");
  ASSERT_FALSE(trace);
  EXPECT_NE(trace.error().message.find("memory.html: "), std::string::npos);
  EXPECT_NE(trace.error().message.find(".raw.json.gz"), std::string::npos) << trace.error().message;
  auto other = loadTraceFromBytes("<!DOCTYPE html><html></html>", "page.html");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("an HTML page, not a trace"), std::string::npos);
}

}  // namespace
}  // namespace sawtooth
