// The recorder's reading of the program stream: frames cut at any byte, payloads decoded, and
// hostile input (oversized frames, lengths past the end, undefined ids) refused with a reason.

#include <gtest/gtest.h>

#include <random>

#include "core/recording/wire.h"
#include "capture/inject/wire_connection.h"
#include "capture/ingest/wire_reader.h"

namespace sawtooth::record {
namespace {

std::string recordsPayload(int n) {
  std::string p;
  for (int i = 0; i < n; ++i) {
    wire::Record r{1000 + i, 0x1000u + static_cast<uint64_t>(i), 512, 7, wire::kNoStack, 0, 0,
                   static_cast<uint8_t>(wire::RecordKind::Allocator)};
    wire::appendPod(p, r);
  }
  return p;
}

TEST(FrameReader, CutsFramesWhateverTheReadBoundaries) {
  std::string stream;
  wire::appendFrame(stream, wire::FrameType::Hello, 0, R"({"role": "shim"})");
  wire::appendFrame(stream, wire::FrameType::Records, 1, recordsPayload(3));
  wire::appendFrame(stream, wire::FrameType::Watermark, 1, std::string(8, '\0'));
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, size_t{64}, stream.size()}) {
    FrameReader reader;
    std::vector<std::pair<wire::FrameType, size_t>> got;
    for (size_t at = 0; at < stream.size(); at += chunk) {
      Status st = reader.feed(std::string_view(stream).substr(at, chunk), [&](const wire::Header& h, std::string_view p) {
        got.emplace_back(h.type, p.size());
        return Status(Ok{});
      });
      ASSERT_TRUE(st.ok());
    }
    ASSERT_EQ(got.size(), 3u) << "chunk " << chunk;
    EXPECT_EQ(got[1].first, wire::FrameType::Records);
    EXPECT_EQ(got[1].second, 3 * sizeof(wire::Record));
    EXPECT_EQ(reader.pendingBytes(), 0u);
  }
}

TEST(FrameReader, RefusesAFrameOverTheLimit) {
  char header[wire::kHeaderSize];
  wire::encodeHeader({wire::kMaxPayload + 1, wire::FrameType::Records, 0, 0}, header);
  FrameReader reader;
  Status st = reader.feed(std::string_view(header, sizeof header), [](const wire::Header&, std::string_view) {
    return Status(Ok{});
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("over the"), std::string::npos);
}

TEST(FrameReader, StopsAtTheFirstFrameItsHandlerRefuses) {
  std::string stream;
  wire::appendFrame(stream, wire::FrameType::Meta, 0, "{}");
  wire::appendFrame(stream, wire::FrameType::Meta, 0, "{}");
  FrameReader reader;
  int calls = 0;
  Status st = reader.feed(stream, [&](const wire::Header&, std::string_view) {
    ++calls;
    return Status(Error{"no"});
  });
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(calls, 1);
}

TEST(WireDecoders, ReadWhatTheSendersWrite) {
  wire::StackTable stacks;
  const uint32_t a = stacks.frame("forward", "model.py", 12);
  const uint32_t b = stacks.frame("main", "train.py", 40);
  EXPECT_EQ(stacks.frame("forward", "model.py", 12), a);
  const uint32_t s = stacks.stack({a, b});
  EXPECT_EQ(stacks.stack({a, b}), s);
  std::string frames_out;
  stacks.appendNew(frames_out, 0);
  std::vector<FrameDef> frames;
  std::vector<StackDef> stack_defs;
  FrameReader reader;
  ASSERT_TRUE(reader
                  .feed(frames_out,
                        [&](const wire::Header& h, std::string_view p) -> Status {
                          if (h.type == wire::FrameType::Frames) return decodeFrames(p, frames);
                          if (h.type == wire::FrameType::Stacks) return decodeStacks(p, stack_defs);
                          return Error{"unexpected frame"};
                        })
                  .ok());
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].name, "forward");
  EXPECT_EQ(frames[0].file, "model.py");
  EXPECT_EQ(frames[0].line, 12);
  ASSERT_EQ(stack_defs.size(), 1u);
  EXPECT_EQ(stack_defs[0].frames, (std::vector<uint32_t>{a, b}));

  wire::NameTable names;
  EXPECT_EQ(names.id("forward"), 0u);
  EXPECT_EQ(names.id("backward"), 1u);
  EXPECT_EQ(names.id("forward"), 0u);
  std::string names_out;
  names.appendNew(names_out, 0);
  std::vector<NameDef> defs;
  ASSERT_TRUE(decodeNames(std::string_view(names_out).substr(wire::kHeaderSize), defs).ok());
  ASSERT_EQ(defs.size(), 2u);
  EXPECT_EQ(defs[1].text, "backward");
}

TEST(WireDecoders, RefuseTruncatedAndOversizedEntries) {
  std::vector<wire::Record> records;
  EXPECT_FALSE(decodeRecords(recordsPayload(2).substr(0, 79), records).ok());
  std::vector<FrameDef> frames;
  std::string frame;
  wire::appendPod(frame, uint32_t{1});
  wire::appendPod(frame, int32_t{3});
  wire::appendPod(frame, uint16_t{200});  // the name says 200 bytes; 4 are there
  wire::appendPod(frame, uint16_t{0});
  frame += "abcd";
  EXPECT_FALSE(decodeFrames(frame, frames).ok());
  std::string stack;
  wire::appendPod(stack, uint32_t{1});
  wire::appendPod(stack, uint16_t{wire::kMaxStackDepth + 1});
  std::vector<StackDef> stacks;
  EXPECT_FALSE(decodeStacks(stack, stacks).ok());
  EXPECT_FALSE(decodeTime("1234567").ok());
  EXPECT_EQ(*decodeTime(std::string("\x2a\0\0\0\0\0\0\0", 8)), 42);
}

TEST(WireDecoders, RandomBytesNeverCrashTheReader) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(rng() % 200, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    FrameReader reader;
    (void)reader.feed(bytes, [](const wire::Header& h, std::string_view p) -> Status {
      std::vector<wire::Record> r;
      std::vector<FrameDef> f;
      std::vector<StackDef> s;
      std::vector<NameDef> n;
      std::vector<wire::Kernel> k;
      switch (h.type) {
        case wire::FrameType::Records: return decodeRecords(p, r);
        case wire::FrameType::Frames: return decodeFrames(p, f);
        case wire::FrameType::Stacks: return decodeStacks(p, s);
        case wire::FrameType::Names: return decodeNames(p, n);
        case wire::FrameType::Kernels: return decodeKernels(p, k);
        default: return Ok{};
      }
    });
  }
  SUCCEED();
}

TEST(WireHello, CarriesTheMagicAndVersionAndItsJson) {
  const std::string payload = wire::helloPayload(R"({"role": "shim"})");
  ASSERT_EQ(payload.substr(0, 8), "SAWTWIRE");
  auto json = wire::helloJson(payload);
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(*json, R"({"role": "shim"})");
}

TEST(WireHello, RefusesOldForeignAndOtherVersionsNamingBoth) {
  auto old = wire::helloJson(R"({"role": "shim", "pid": 1})");
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.error().message.find("protocol 1"), std::string::npos) << old.error().message;
  EXPECT_NE(old.error().message.find("speaks " + std::to_string(wire::kProtocolVersion)), std::string::npos);

  auto foreign = wire::helloJson("GET / HTTP/1.1\r\n\r\n");
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().message.find("not a Sawtooth"), std::string::npos) << foreign.error().message;
  EXPECT_FALSE(wire::helloJson("").ok());
  EXPECT_FALSE(wire::helloJson("SAWTWIRE").ok()) << "cut short before the version";

  std::string newer = wire::helloPayload("{}");
  newer[8] = static_cast<char>(wire::kProtocolVersion + 1);
  auto v = wire::helloJson(newer);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("protocol " + std::to_string(wire::kProtocolVersion + 1)), std::string::npos)
      << v.error().message;
  EXPECT_NE(v.error().message.find("speaks " + std::to_string(wire::kProtocolVersion)), std::string::npos);
}

}  // namespace
}  // namespace sawtooth::record
