// Inputs that crashed, hung or tripped UBSan, reduced by hand to what matters: found by the
// fuzzers (fuzz/), or by review beside them (fuzz/README.md says which). Each must give an error
// value or a trace. Overflow cases only fail under the fuzz preset's UBSan
// (-fno-sanitize-recover), which runs this suite too.

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "core/analysis/trace_summary.h"
#include "core/io/chrome_trace_export.h"
#include "core/io/file_bytes.h"
#include "core/io/jax_profile_importer.h"
#include "core/io/memory_timeline_importer.h"
#include "core/io/pickle_document.h"
#include "core/io/snapshot_decoder.h"
#include "core/io/snapshot_importer.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Protocol-2 opcodes, written by hand: Python's pickle cannot write invalid UTF-8 strings.
std::string str(std::string_view s) { return "\x8c" + std::string(1, static_cast<char>(s.size())) + std::string(s); }
std::string int64(int64_t v) {
  std::string out = "\x8a\x08";  // LONG1, 8 bytes little-endian
  for (int k = 0; k < 8; ++k) out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * k)) & 0xff);
  return out;
}
std::string entry(std::string_view action, int64_t size, int64_t time_us) {
  return "}(" + str("action") + str(action) + str("addr") + int64(4096) + str("size") + int64(size) + str("time_us") +
         int64(time_us) + "u";
}
// {'device_traces': [[entries...]], 'allocator_settings': settings}
std::string snapshot(const std::string& entries, const std::string& settings = "}") {
  return "\x80\x02}(" + str("device_traces") + "](](" + entries + "ee" + str("allocator_settings") + settings + "u.";
}

TEST(FuzzRegression, NonStringSettingsKeyWithInvalidUtf8IsReplaced) {
  // allocator_settings = {'k': {('\xff\xfe',): 1}}; rendering the tuple key used to throw.
  const std::string settings = "}(" + str("k") + "}" + str("\xff\xfe") + "\x85K\x01su";
  auto trace = loadTraceFromBytes(snapshot(entry("alloc", 16, 1000), settings), "utf8");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const std::string& text = trace->meta.at("allocator.k");
  EXPECT_NE(text.find("\xef\xbf\xbd"), std::string::npos) << text;  // U+FFFD
  EXPECT_EQ(text.find('\xff'), std::string::npos) << text;
}

TEST(FuzzRegression, SelfReferencingSettingIsRenderedInBoundedWork) {
  // allocator_settings = {'k': L} where L holds itself eight times: 8^16 nodes within the depth limit.
  using namespace std::string_view_literals;
  std::string settings = "}(" + str("k") + std::string("]q\x00("sv);  // an empty list, memo 0, MARK
  for (int k = 0; k < 8; ++k) settings += "h\x00"sv;                 // BINGET 0
  settings += "eu";                                                   // APPENDS, SETITEMS
  const auto start = std::chrono::steady_clock::now();
  auto trace = loadTraceFromBytes(snapshot(entry("alloc", 16, 1000), settings), "cycle");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  const std::string& text = trace->meta.at("allocator.k");
  EXPECT_LT(text.size(), 200000u);
  EXPECT_NE(text.find("..."), std::string::npos);
}

// A test data file's bytes, owned as the readers hold them; nullptr when it cannot be read.
std::shared_ptr<const std::string> dataBytes(const std::string& file) {
  auto bytes = readFileBytes(test::dataPath(file));
  return bytes.ok() ? std::make_shared<const std::string>(std::move(*bytes)) : nullptr;
}

// A pickle that adds items to a dict after the snapshot decoder has read it: the decoder gives way
// to the generic reader, so both paths answer alike (fuzz_snapshot found them disagreeing).
TEST(FuzzRegression, AContainerChangedAfterTheDecoderReadItIsReadGenerically) {
  auto owner = dataBytes("fuzz_changed_after_read.bin");
  ASSERT_NE(owner, nullptr);
  ReadBudget budget;
  bool unrecognized = false;
  auto decoded = decodeSnapshotOnly(owner, *owner, budget, nullptr, unrecognized);
  ASSERT_FALSE(decoded.ok());
  EXPECT_TRUE(unrecognized) << decoded.error().message;
  auto doc = pickle::parse(owner, *owner, pickle::ParseOptions{});
  auto loaded = loadTraceFromBytes(*owner, "changed.pickle");
  if (doc.ok()) {
    auto generic = importSnapshot(*doc, budget, nullptr);
    EXPECT_EQ(loaded.ok(), generic.ok());
    if (!loaded.ok() && !generic.ok()) {
      EXPECT_EQ(loaded.error().message.find("already read"), std::string::npos);
    }
  }
}

// The snapshot decoder and the generic reader on a file the decoder reads itself: the same trace
// or the same error (fuzz_snapshot's oracle).
void expectReadersAgree(const std::string& file) {
  auto owner = dataBytes(file);
  ASSERT_NE(owner, nullptr);
  ReadBudget decoder_budget, generic_budget;
  bool unrecognized = false;
  auto decoded = decodeSnapshotOnly(owner, *owner, decoder_budget, nullptr, unrecognized);
  ASSERT_FALSE(unrecognized);
  Result<Trace> generic = Error{""};
  if (auto doc = pickle::parse(owner, *owner, pickle::ParseOptions{})) generic = importSnapshot(*doc, generic_budget, nullptr);
  else generic = doc.error();
  ASSERT_EQ(decoded.ok(), generic.ok()) << (decoded.ok() ? generic.error().message : decoded.error().message);
  if (!decoded.ok()) {
    EXPECT_EQ(decoded.error().message, generic.error().message);
    return;
  }
  ASSERT_EQ(decoded->events.size(), generic->events.size());
  EXPECT_EQ(decoded->meta.at("t0_unix_ns"), generic->meta.at("t0_unix_ns"));
  for (size_t i = 0; i < decoded->events.size(); ++i) EXPECT_EQ(decoded->events.at(i).t_ns, generic->events.at(i).t_ns) << i;
}

// An event whose 'time_us' key and value a TUPLE3 folds into a tuple key after the decoder's fast
// path read them: the event has no time_us, and the decoder kept the one it had seen.
TEST(FuzzRegression, APairFoldedIntoATupleAfterTheFastPathReadItIsNotAField) {
  expectReadersAgree("fuzz_tuple_key_in_event.bin");
}

// A frame name followed by a FRAME and a LONG_BINPUT past the memo's end: the fast path gave the
// string back to the parser from the wrong byte (it had stepped over the FRAME), and the parser
// read the string's text as opcodes.
TEST(FuzzRegression, AStringGivenBackToTheParserAfterAFrameRestartsAtItsOpcode) {
  expectReadersAgree("fuzz_frame_after_string.bin");
}

// 2049 events in one APPENDS: the fast path, which reads 2048 per call, had taken the next
// event's EMPTY_DICT without putting it on the stack, and that event's fields landed on the one before.
TEST(FuzzRegression, TheEventAfterTheFastPathsBatchIsReadByTheParser) {
  expectReadersAgree("fuzz_event_2049_in_one_appends.bin");
}

// A frames list the parser built (LIST) around a frame dict the decoder had typed: the decoder read
// the frame as an empty one; now it reads the file generically.
TEST(FuzzRegression, ATypedFrameInAGenericFramesListIsReadGenerically) {
  auto owner = dataBytes("fuzz_typed_frame_in_generic_list.bin");
  ASSERT_NE(owner, nullptr);
  ReadBudget budget;
  bool unrecognized = false;
  auto decoded = decodeSnapshotOnly(owner, *owner, budget, nullptr, unrecognized);
  EXPECT_TRUE(unrecognized);
  auto trace = loadTraceFromBytes(*owner, "typed-frame.pickle");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->events.size(), 1u);
  const auto frames = trace->stacks.stack(trace->events.at(0).stack);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(trace->stacks.frame(frames[0]).name, "n");
}

// One event dict listed 1024 times (DUP), with 1022 items: the generic reader counted its items at
// every listing and called it a memo bomb, the decoder did not. A dict listed again is now the
// same event again for both, its items read once.
TEST(FuzzRegression, OneEventDictListedManyTimesIsReadOnce) {
  expectReadersAgree("fuzz_one_event_dict_many_times.bin");
  auto owner = dataBytes("fuzz_one_event_dict_many_times.bin");
  ASSERT_NE(owner, nullptr);
  auto trace = loadTraceFromBytes(*owner, "dup.pickle");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->events.size(), 1024u);
}

// A memory timeline whose times lie 2^63 µs apart: the span from the first wrapped negative and
// passed the range check, then overflowed in µs to ns (fuzz_memory_timeline, UBSan).
TEST(FuzzRegression, MemoryTimelineTimesThatWrapAreAnError) {
  const std::string json =
      "[[-9223372036854775808, 1795936427991200], [[0, 1, 0, 0, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0, 0, 0, 0]]]";
  auto trace = importMemoryTimeline(json);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("too far"), std::string::npos) << trace.error().message;
}

TEST(FuzzRegression, SnapshotTimeOutOfRangeIsAnError) {
  // (time_us - t0) * 1000 overflowed int64.
  auto trace = loadTraceFromBytes(snapshot(entry("alloc", 16, 1000) + entry("free_completed", 16, -34895868902366752)),
                                  "time.pickle");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().message, "time.pickle: device_traces[0][1]: time_us -34895868902366752 is out of range");
}

TEST(FuzzRegression, SnapshotSizesWhoseSumOverflowsAreRefused) {
  // The sums used to wrap; a negative size or a total past 2^63 is now refused with the event.
  const int64_t quarter = int64_t{1} << 62;
  auto negative = loadTraceFromBytes(
      snapshot(entry("alloc", quarter, 1) + entry("alloc", quarter, 2) + entry("free_completed", kMin, 3)), "sizes");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().message, "sizes: device_traces[0][2]: size -9223372036854775808 is negative");
  ReadLimits any_size;  // sizes past 1 PiB are refused by the size limit first
  any_size.max_size = uint64_t{1} << 62;
  auto overflow = loadTraceFromBytes(
      snapshot(entry("alloc", quarter, 1) + entry("alloc", quarter, 2) + entry("alloc", quarter, 3)), "sum", nullptr,
      any_size);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message, "sum: event 1 (alloc on cuda:0): the allocated bytes on cuda:0 pass 2^63");
}

std::string memoryEvent(std::string_view bytes, std::string_view ts) {
  return R"({"ph":"i","name":"[memory]","ts":)" + std::string(ts) + R"(,"args":{"Bytes":)" + std::string(bytes) +
         R"(,"Device Id":0,"Device Type":1,"Total Allocated":0}})";
}

TEST(FuzzRegression, ProfilerRangeTooFarFromTheTraceIsAnError) {
  const std::string json = R"({"traceEvents":[)" + memoryEvent("16", "5079021775084.309") +
                           R"(,{"ph":"X","cat":"user_annotation","name":"step","ts":5079021776062.961,)"
                           R"("dur":-9223372036854775808}]})";
  auto trace = loadTraceFromBytes(json, "range.json");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("range.json: the range 'step'"), std::string::npos) << trace.error().message;
}

TEST(FuzzRegression, ProfilerMostNegativeBytesIsRefused) {
  // A free of -INT64_MIN bytes used to load as a size that wraps to itself; it is now refused as
  // it is read.
  const std::string json =
      R"({"traceEvents":[)" + memoryEvent("-9223372036854775808", "10") + "," + memoryEvent("5", "11") + "]}";
  auto trace = loadTraceFromBytes(json, "bytes.json");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error().message,
            "bytes.json: traceEvents[0] ([memory]): args.Bytes is -9223372036854775808, not a whole number of bytes "
            "within 64 bits");
}

TEST(FuzzRegression, ChromeExportOfPhaseSpanningTheWholeRange) {
  Trace trace;
  trace.format = "sawtooth";
  trace.deviceInfo(0);
  trace.phases.push_back(Phase{"all", PhaseKind::Phase, kAllDevices, kNoRun, kMin, kMax});
  std::ostringstream out;
  writeChromeTrace(trace, out);
  EXPECT_NE(out.str().find(R"("name":"all")"), std::string::npos);
}

// A 113-byte JAX profile whose sample counts make 8,192 events: under an amplification floor below
// one charging step (4,096, as fuzz_jax_profile sets it) the cap held only at the step's end
// (65,536 rows), so the reader returned twice what the cap allows; every row is checked now.
TEST(FuzzRegression, ASmallAmplificationFloorHoldsExactly) {
  auto owner = dataBytes("fuzz_jax_events_past_a_small_floor.bin");
  ASSERT_NE(owner, nullptr);
  ReadLimits limits;  // as fuzz_jax_profile reads
  limits.max_memory = uint64_t{4} << 20;
  limits.amplification_floor = 4096;
  ReadBudget budget(limits);
  auto trace = importJaxMemoryProfile(std::string(*owner), "", nullptr, &budget);
  if (trace) {
    EXPECT_LE(trace->events.size(), 4096u);
  } else {
    EXPECT_NE(trace.error().message.find("amplification"), std::string::npos) << trace.error().message;
  }
}

}  // namespace
}  // namespace sawtooth
