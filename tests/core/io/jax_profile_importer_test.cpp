// JAX device memory profiles: the protobuf wire reader, the CPU fixture against the independent
// reading (tests/tools/independent_pprof.py, cross-checked with Google's protobuf library by
// check_pprof_with_protobuf.py), memory_analysis beside the profile, and profiles built here
// byte by byte.

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "core/analysis/trace_summary.h"
#include "core/io/file_bytes.h"
#include "core/io/jax_profile_importer.h"
#include "core/io/protobuf_wire.h"
#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

using protobuf::Field;
using protobuf::WireReader;
using protobuf::WireType;
using test::dataPath;
using test::expectedInfo;

// A protobuf encoder for the tests: varint fields and length-delimited fields.
std::string varint(uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string num(uint32_t field, uint64_t v) { return varint(uint64_t{field} << 3) + varint(v); }
std::string len(uint32_t field, const std::string& payload) {
  return varint((uint64_t{field} << 3) | 2) + varint(payload.size()) + payload;
}
std::string packed(uint32_t field, std::initializer_list<uint64_t> values) {
  std::string body;
  for (uint64_t v : values) body += varint(v);
  return len(field, body);
}

// Strings: 0 "", 1 allocations, 2 count, 3 space, 4 bytes, 5 kind, 6 buffer, 7 executable,
// 8 device, 9 cuda:1, 10 f, 11 file.py, 12 g, 13 tpu_0.
std::string profileHeader() {
  return len(1, num(1, 1) + num(2, 2)) + len(1, num(1, 3) + num(2, 4));
}
std::string stringTable() {
  std::string out;
  for (const char* s : {"", "allocations", "count", "space", "bytes", "kind", "buffer", "executable", "device", "cuda:1",
                        "f", "file.py", "g", "tpu_0"})
    out += len(6, s);
  return out;
}
std::string label(uint64_t key, uint64_t str) { return len(3, num(1, key) + num(2, str)); }
std::string buffer(uint64_t count, uint64_t bytes, uint64_t device, std::initializer_list<uint64_t> locations = {}) {
  std::string s = locations.size() ? packed(1, locations) : "";
  return len(2, s + packed(2, {count, bytes}) + label(5, 6) + label(8, device));
}
std::string functionsAndLocations() {
  // function 1 = f in file.py, function 2 = g; location 1 = f:10, location 2 = g:20 with f:11 inlined.
  return len(5, num(1, 1) + num(2, 10) + num(4, 11)) + len(5, num(1, 2) + num(2, 12) + num(4, 11)) +
         len(4, num(1, 1) + len(4, num(1, 1) + num(2, 10))) +
         len(4, num(1, 2) + len(4, num(1, 1) + num(2, 11)) + len(4, num(1, 2) + num(2, 20)));
}

TEST(ProtobufWire, ReadsEveryWireTypeAndChecksEveryLength) {
  const std::string data = num(1, 300) + len(2, "abc") + std::string("\x1d\x01\x02\x03\x04", 5) +
                           std::string("\x21\x01\x00\x00\x00\x00\x00\x00\x80", 9) + num(5, UINT64_MAX);
  WireReader r(data);
  Field f;
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.value, 300u);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.type, WireType::Bytes);
  EXPECT_EQ(f.bytes, "abc");
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.number, 3u);
  EXPECT_EQ(f.value, 0x04030201u);  // little-endian
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.number, 4u);
  EXPECT_EQ(f.value, 0x8000000000000001u);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.value, UINT64_MAX);  // ten bytes
  EXPECT_FALSE(r.next(f));
  EXPECT_TRUE(r.error().empty());
}

TEST(ProtobufWire, MalformedDataIsAnErrorWithItsOffset) {
  const std::pair<std::string, const char*> cases[] = {
      {std::string("\x08\x80", 2), "byte 1: the data ends inside a varint"},
      {std::string("\x08") + std::string(10, '\xff') + "\x01", "longer than 10 bytes"},
      {std::string("\x12\x05" "ab", 4), "byte 0: field 2 claims 5 bytes, 2 are left"},
      {std::string("\x1b", 1), "group"},
      {std::string("\x0e", 1), "wire type 6"},
      {std::string("\x00\x01", 2), "field number 0"},
      {std::string("\x1d\x01\x02", 3), "needs 4 bytes"},
  };
  for (const auto& [data, message] : cases) {
    WireReader r(data);
    Field f;
    while (r.next(f)) {
    }
    EXPECT_NE(r.error().find(message), std::string::npos) << r.error();
  }
  std::vector<uint64_t> out;
  Field truncated{2, WireType::Bytes, 0, std::string_view("\x01\x80", 2)};
  EXPECT_FALSE(protobuf::appendVarints(truncated, out));
  Field unpacked{2, WireType::Varint, 7, {}};
  EXPECT_TRUE(protobuf::appendVarints(unpacked, out));
  EXPECT_EQ(out, (std::vector<uint64_t>{7}));
}

TEST(JaxProfile, TheCpuFixtureMatchesTheIndependentReading) {
  auto trace = loadTrace(dataPath("jax_seed_cpu.prof"));
  ASSERT_TRUE(trace) << trace.error().message;
  const auto expected = expectedInfo("jax_seed_cpu.prof");
  EXPECT_EQ(trace->format, "jax-memory-profile");
  EXPECT_EQ(trace->events.size(), expected.at("events").get<size_t>());
  const TraceSummary summary = summarize(*trace);
  ASSERT_EQ(summary.devices.size(), 1u);
  const auto& want = expected.at("devices")[0];
  EXPECT_EQ(summary.devices[0].device, kCpuDevice);
  EXPECT_EQ(summary.devices[0].final_allocated, want.at("final_allocated_bytes").get<int64_t>());
  EXPECT_EQ(summary.devices[0].peak_allocated.value, want.at("peak_allocated_bytes").get<int64_t>());
  ASSERT_EQ(trace->runs.size(), 1u);
  const sawtooth::Run& run = trace->runs[0];
  EXPECT_EQ(run.measurement("live_bytes cpu:0")->value, want.at("final_allocated_bytes").get<double>());
  EXPECT_EQ(run.measurement("live_buffers cpu:0")->value, want.at("live_buffers").get<double>());
  EXPECT_EQ(run.measurement("executables")->value, expected.at("executables").get<double>());
  EXPECT_TRUE(run.configValue("executable 001"));
  // Every buffer has its Python stack, innermost first; the parameters were made in the
  // generator's list comprehension.
  bool listcomp = false;
  for (size_t i = 0; i < trace->events.size(); ++i) {
    ASSERT_NE(trace->events.stack()[i], kNoStack);
    for (uint32_t id : trace->stacks.stack(trace->events.stack()[i]))
      listcomp |= trace->stacks.frame(id).name == "<listcomp>" &&
                  trace->stacks.frame(id).file.ends_with("jax_memory_profile.py");
  }
  EXPECT_TRUE(listcomp);
}

TEST(JaxProfile, MemoryAnalysisBesideTheProfileBecomesThePlan) {
  auto trace = loadTrace(dataPath("jax_seed_cpu.prof"));
  ASSERT_TRUE(trace) << trace.error().message;
  const sawtooth::Run& run = trace->runs[0];
  // jax_seed_cpu.memory_analysis.json, written by bench/gpu/jax_memory_profile.py.
  EXPECT_EQ(run.measurement("jax_plan_argument_bytes")->value, 1605632);
  EXPECT_EQ(run.measurement("jax_plan_output_bytes")->value, 1572912);
  EXPECT_EQ(run.measurement("jax_plan_temp_bytes")->value, 229376);
  EXPECT_EQ(run.measurement("jax_plan_alias_bytes")->value, 0);
  EXPECT_EQ(run.measurement("jax_plan_total_bytes")->value, 1605632 + 1572912 + 229376);
  EXPECT_EQ(run.configValue("memory_analysis device"), "cpu:0");
  // From bytes alone there is no file beside it.
  auto bytes = readMaybeGzip(dataPath("jax_seed_cpu.prof"));
  auto alone = loadTraceFromBytes(*bytes, "memory.prof");
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->runs[0].measurement("jax_plan_total_bytes"), nullptr);
}

TEST(JaxProfile, MemoryAnalysisPathAndBadAnalyses) {
  EXPECT_EQ(jaxMemoryAnalysisPath("/a/b/seed.prof"), "/a/b/seed.memory_analysis.json");
  EXPECT_EQ(jaxMemoryAnalysisPath("/a/b/seed.prof.gz"), "/a/b/seed.memory_analysis.json");
  EXPECT_EQ(jaxMemoryAnalysisPath("/a.b/seed"), "/a.b/seed.memory_analysis.json");
  EXPECT_EQ(jaxMemoryAnalysisPath("/a/.hidden"), "/a/.hidden.memory_analysis.json");
  Trace trace;
  trace.runs.emplace_back();
  EXPECT_FALSE(addJaxMemoryAnalysis(trace, "[1]"));
  EXPECT_FALSE(addJaxMemoryAnalysis(trace, R"({"argument_size_in_bytes": -1, "output_size_in_bytes": 1, "temp_size_in_bytes": 1, "alias_size_in_bytes": 0})"));
  EXPECT_FALSE(addJaxMemoryAnalysis(trace, R"({"argument_size_in_bytes": 1, "output_size_in_bytes": 1})"));
  EXPECT_TRUE(trace.runs[0].measurements.empty());  // nothing half-added
  EXPECT_TRUE(addJaxMemoryAnalysis(
      trace, R"({"argument_size_in_bytes": 10, "output_size_in_bytes": 20, "temp_size_in_bytes": 5, "alias_size_in_bytes": 4})"));
  EXPECT_EQ(trace.runs[0].measurement("jax_plan_total_bytes")->value, 31);
}

TEST(JaxProfile, SamplesBecomeOneEventPerBufferOnTheirDevice) {
  const std::string profile = profileHeader() + buffer(3, 300, 9, {2, 1}) + buffer(1, 8, 13) +
                              len(2, packed(2, {1, 4096}) + label(5, 7)) + functionsAndLocations() + stringTable();
  ASSERT_TRUE(looksLikePprof(profile));
  auto trace = loadTraceFromBytes(profile, "synthetic.prof");
  ASSERT_TRUE(trace) << trace.error().message;
  ASSERT_EQ(trace->events.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(trace->events.device()[i], 1);  // cuda:1
    EXPECT_EQ(trace->events.sizes()[i], 100);
    EXPECT_EQ(trace->events.action()[i], Action::Alloc);
  }
  // tpu_0 is not a CUDA or CPU device: a device of its own, labelled with JAX's name.
  const int16_t tpu = trace->events.device()[3];
  EXPECT_EQ(trace->deviceName(tpu), "tpu_0");
  // Stack: location 2 (g:20 with f:11 inlined into it: f first), then location 1 (f:10).
  const auto frames = trace->stacks.stack(trace->events.stack()[0]);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(trace->stacks.frame(frames[0]).name, "f");
  EXPECT_EQ(trace->stacks.frame(frames[0]).line, 11);
  EXPECT_EQ(trace->stacks.frame(frames[1]).name, "g");
  EXPECT_EQ(trace->stacks.frame(frames[1]).line, 20);
  EXPECT_EQ(trace->stacks.frame(frames[2]).file, "file.py");
  const sawtooth::Run& run = trace->runs[0];
  EXPECT_EQ(run.measurement("live_bytes cuda:1")->value, 300);
  EXPECT_EQ(run.measurement("live_buffers cuda:1")->value, 3);
  EXPECT_EQ(run.measurement("executables")->value, 1);
  EXPECT_EQ(run.measurement("executable_code_bytes")->value, 4096);
  EXPECT_NE(run.configValue("executable 001")->find("4.1 kB of generated code"), std::string::npos)
      << *run.configValue("executable 001");
}

// Four bytes of a sample may claim 16 million buffers: each is an event, counted against the
// memory and events limits, so the import stops with an error value instead of growing.
TEST(JaxProfile, ASampleClaimingMillionsOfBuffersStopsAtTheLimits) {
  const std::string profile = profileHeader() + buffer((uint64_t{1} << 24) - 1, uint64_t{1} << 40, 9) + stringTable();
  ASSERT_LT(profile.size(), 200u);
  ReadLimits small;
  small.max_memory = 64 << 20;
  small.max_amplification = uint64_t{1} << 30;  // else the amplification limit comes first
  auto trace = loadTraceFromBytes(profile, "bomb.prof", nullptr, small);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("memory"), std::string::npos) << trace.error().message;
  EXPECT_NE(trace.error().message.find("sample 0"), std::string::npos) << trace.error().message;
  ReadLimits few;
  few.max_events = 1000;
  auto counted = loadTraceFromBytes(profile, "bomb.prof", nullptr, few);
  ASSERT_FALSE(counted.ok());
  EXPECT_NE(counted.error().message.find("more than 1000 events"), std::string::npos) << counted.error().message;
}

// Caps the process's address space at what it uses now and `headroom` more, then reads the
// profile: the exit code for EXPECT_EXIT, the error on stderr.
int readUnderAddressSpaceCap(const std::string& profile, rlim_t headroom) {
  ReadLimits roomy;
  roomy.max_memory = uint64_t{16} << 30;
  roomy.max_amplification = uint64_t{1} << 30;
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  rlimit limit;
  limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + headroom;
  if (pages == 0 || setrlimit(RLIMIT_AS, &limit) != 0) return 3;
  auto trace = loadTraceFromBytes(profile, "bomb.prof", nullptr, roomy);
  std::fprintf(stderr, "%s\n", trace.ok() ? "read" : trace.error().message.c_str());
  return trace.ok() ? 1 : 0;
}

// Under `ulimit -v` the system may refuse what the memory limit allows: the error value says how
// much the reader had counted by then (it said "0 were in use": what a structure held was handed
// back as the exception left it). In a child process, whose address space is capped.
TEST(JaxProfile, AnAllocationTheSystemRefusesSaysHowMuchWasCounted) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the cap leaves";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the cap leaves";
#endif
#endif
  const std::string profile = profileHeader() + buffer(uint64_t{1} << 23, uint64_t{1} << 32, 9) + stringTable();
  EXPECT_EXIT(std::_Exit(readUnderAddressSpaceCap(profile, 96 << 20)), ::testing::ExitedWithCode(0),
      "bomb.prof: ran out of memory while reading it, with [1-9][0-9.]* [kMG]B counted at most against the memory "
      "limit of 17.18 GB \\(the system refused more; raise it with --max-memory SIZE\\)");
}

// Past the first 2^20 events, at most 16 events a byte of input: a sample of a few bytes claiming
// millions of buffers is refused at once, naming the limit; raised, the same file reads.
TEST(JaxProfile, AFewBytesStandForAtMostTheAmplificationLimit) {
  const uint64_t buffers = (uint64_t{1} << 20) + (uint64_t{1} << 17);
  const std::string profile = profileHeader() + buffer(buffers, buffers * 512, 9) + stringTable();
  auto trace = loadTraceFromBytes(profile, "bomb.prof");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find(fmt::format("sample 0: 1048577 events from {} bytes of input", profile.size())),
            std::string::npos)
      << trace.error().message;
  EXPECT_NE(trace.error().message.find("(the amplification limit; raise it with --limit amplification=N)"),
            std::string::npos);
  ReadLimits raised;
  raised.max_amplification = 100000;
  auto read = loadTraceFromBytes(profile, "bomb.prof", nullptr, raised);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->events.size(), buffers);
}

// A location of 2,000 lines listed 1,000 times is a stack of 2 M frames from a few kilobytes:
// refused at the amplification limit instead of built (100 M frames a sample took 84 s and 3.8 GB).
TEST(JaxProfile, ALocationListedOverAndOverIsHeldToTheAmplificationLimit) {
  std::string lines;
  for (uint64_t line = 1; line <= 2000; ++line) lines += len(4, num(1, 1) + num(2, line));
  std::string refs;
  for (int i = 0; i < 1000; ++i) refs += varint(1);
  const std::string sample = len(2, len(1, refs) + packed(2, {1, 512}) + label(5, 6) + label(8, 9));
  const std::string profile =
      profileHeader() + sample + len(4, num(1, 1) + lines) + len(5, num(1, 1) + num(2, 10) + num(4, 11)) + stringTable();
  ASSERT_LT(profile.size(), 20000u);
  auto trace = loadTraceFromBytes(profile, "deep.prof");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("stack frames from"), std::string::npos) << trace.error().message;
  EXPECT_NE(trace.error().message.find("the amplification limit"), std::string::npos);
  // Listed 100 times, the same location makes a stack of 200,000 frames: read, as it says.
  std::string few;
  for (int i = 0; i < 100; ++i) few += varint(1);
  const std::string ok_profile = profileHeader() + len(2, len(1, few) + packed(2, {1, 512}) + label(5, 6) + label(8, 9)) +
                                 len(4, num(1, 1) + lines) + len(5, num(1, 1) + num(2, 10) + num(4, 11)) + stringTable();
  auto ok = loadTraceFromBytes(ok_profile, "deep.prof");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->stacks.stackCount(), 1u);
  EXPECT_EQ(ok->stacks.stack(0).size(), 200000u);
  EXPECT_EQ(ok->stacks.frameCount(), 2000u);
}

// Strings appended after stringTable()'s 14: their indices start at 14.
std::string moreStrings(const std::vector<std::string>& strings) {
  std::string out;
  for (const std::string& text : strings) out += len(6, text);
  return out;
}

// Each sample can raise a warning of its own (a kind of its own): 20 are kept, then one line says
// there were more (every one was kept, each searched for in all the others before).
TEST(JaxProfile, WarningsStopAtTwentyKinds) {
  std::string samples;
  std::vector<std::string> kinds;
  for (uint64_t i = 0; i < 50; ++i) {
    samples += len(2, packed(2, {1, 512}) + label(5, 14 + i) + label(8, 9));
    kinds.push_back(fmt::format("kind_{}", i));
  }
  auto trace = loadTraceFromBytes(profileHeader() + samples + stringTable() + moreStrings(kinds), "kinds.prof");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->events.size(), 50u);
  const std::string& warnings = trace->meta["warnings"];
  EXPECT_NE(warnings.find("samples of kind 'kind_19' (read as buffers)"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("kind_20"), std::string::npos) << warnings;
  EXPECT_TRUE(warnings.ends_with("; and other warnings")) << warnings;
}

// A 'kind' or 'device' label is a word or two; one of hundreds of bytes is not what JAX writes.
TEST(JaxProfile, ALongKindLabelIsRefused) {
  const std::string profile = profileHeader() + len(2, packed(2, {1, 512}) + label(5, 14) + label(8, 9)) +
                              stringTable() + moreStrings({std::string(300, 'x')});
  auto trace = loadTraceFromBytes(profile, "kind.prof");
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("sample 0: a 'kind' label of 300 bytes (JAX writes a few)"), std::string::npos)
      << trace.error().message;
}

// Comments are indices into the string table: one long string listed a thousand times was a
// megabyte of text from a few kilobytes; the text stops past 64 KiB and says how many are left.
TEST(JaxProfile, CommentsListingOneLongStringAreCut) {
  std::string refs;
  for (int i = 0; i < 1000; ++i) refs += varint(14);
  const std::string profile = profileHeader() + buffer(1, 512, 9) + len(13, refs) + stringTable() +
                              moreStrings({std::string(1000, 'c')});
  auto trace = loadTraceFromBytes(profile, "comments.prof");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const std::string& comments = trace->meta["pprof.comments"];
  EXPECT_LT(comments.size(), 70000u);
  EXPECT_TRUE(comments.ends_with("\n… 934 more")) << comments.substr(comments.size() - 40);
}

// The stacks the reader builds count against the memory limit: 1,000 samples, each listing its
// own location and one of 1,000 lines, are a million frames (4 MB) from 40 kB of input.
TEST(JaxProfile, TheStacksBuiltCountAgainstTheMemoryLimit) {
  std::string lines;
  for (uint64_t line = 1; line <= 1000; ++line) lines += len(4, num(1, 1) + num(2, line));
  std::string profile = profileHeader() + len(4, num(1, 1) + lines);
  for (uint64_t i = 0; i < 1000; ++i) {
    profile += len(4, num(1, 2 + i) + len(4, num(1, 1) + num(2, 5000 + i)));
    profile += len(2, packed(1, {2 + i, 1}) + packed(2, {1, 512}) + label(5, 6) + label(8, 9));
  }
  profile += len(5, num(1, 1) + num(2, 10) + num(4, 11)) + stringTable();
  ASSERT_LT(profile.size(), 60000u);
  auto read = loadTraceFromBytes(profile, "stacks.prof");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->stacks.stackFrameCount(), 1001000u);
  ReadLimits small;
  small.max_memory = 6 << 20;
  auto trace = loadTraceFromBytes(profile, "stacks.prof", nullptr, small);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error().message.find("memory"), std::string::npos) << trace.error().message;
  EXPECT_NE(trace.error().message.find("stack"), std::string::npos) << trace.error().message;
}

TEST(JaxProfile, OddSamplesAreKeptAndFlagged) {
  const std::string profile = profileHeader() + buffer(3, 301, 9) + len(2, packed(2, {1, 50})) + stringTable();
  auto trace = importJaxMemoryProfile(profile, "");
  ASSERT_TRUE(trace) << trace.error().message;
  ASSERT_EQ(trace->events.size(), 4u);
  EXPECT_EQ(trace->events.sizes()[2], 101);  // the remainder goes to the last buffer
  const std::string& warnings = trace->meta.at("warnings");
  EXPECT_NE(warnings.find("not a whole multiple"), std::string::npos);
  EXPECT_NE(warnings.find("without a kind label"), std::string::npos);
  EXPECT_NE(warnings.find("without a device label"), std::string::npos);
}

TEST(JaxProfile, ProfilesThatAreNotJaxMemoryProfilesAreRefused) {
  const std::pair<std::string, const char*> cases[] = {
      {len(1, num(1, 1) + num(2, 2)) + stringTable(), "without a (space, bytes) sample type"},
      {profileHeader() + len(2, packed(2, {1})) + stringTable(), "1 values for 2 sample types"},
      {profileHeader() + len(2, packed(2, {1, uint64_t(-5)})) + stringTable(), "negative"},
      {profileHeader() + buffer(uint64_t{1} << 40, 1 << 20, 9) + stringTable(), "more than 16777216 buffers"},
      {profileHeader() + len(2, "\x0a\x09") + stringTable(), "sample 0"},
      {profileHeader() + num(2, 5) + stringTable(), "sample: field 2 has wire type 0"},
  };
  for (const auto& [profile, message] : cases) {
    auto trace = importJaxMemoryProfile(profile, "");
    ASSERT_FALSE(trace) << message;
    EXPECT_NE(trace.error().message.find(message), std::string::npos) << trace.error().message;
  }
}

TEST(JaxProfile, EveryTruncationOfTheFixtureIsAnErrorOrATrace) {
  const std::string bytes = readMaybeGzip(dataPath("jax_seed_cpu.prof")).value();
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto trace = importJaxMemoryProfile(bytes.substr(0, n), "");
    if (!trace) {
      EXPECT_FALSE(trace.error().message.empty());
    }
  }
}

TEST(JaxProfile, DetectedByContent) {
  const std::string bytes = readMaybeGzip(dataPath("jax_seed_cpu.prof")).value();
  EXPECT_EQ(detectFormat(bytes), TraceFormat::JaxMemoryProfile);
  EXPECT_NE(detectFormat("\n  {\"traceEvents\": []}"), TraceFormat::JaxMemoryProfile);
}

}  // namespace
}  // namespace sawtooth
