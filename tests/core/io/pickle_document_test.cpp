#include <gtest/gtest.h>

#include <string>

#include "core/io/file_bytes.h"
#include "core/io/pickle_document.h"
#include "tests/core/test_data.h"

namespace sawtooth::pickle {
namespace {

std::string bytes(std::initializer_list<int> list) {
  std::string out;
  for (int b : list) out += static_cast<char>(b);
  return out;
}

Document parseOk(const std::string& data) {
  auto doc = parse(data);
  EXPECT_TRUE(doc.ok()) << (doc.ok() ? "" : doc.error().message);
  return doc.ok() ? std::move(doc).value() : Document{};
}

// pickle.dumps({'a': [1, -2, 3.5, None, True, 'x', b'y', 2**70]}, protocol=2)
TEST(Pickle, Protocol2Values) {
  const std::string data = bytes({0x80, 0x02, '}', 'q', 0x00, 'X', 0x01, 0x00, 0x00, 0x00, 'a', 'q', 0x01, ']', 'q',
                                  0x02, '(', 'K', 0x01, 'J', 0xfe, 0xff, 0xff, 0xff, 'G', 0x40, 0x0c, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 'N', 0x88, 'X', 0x01, 0x00, 0x00, 0x00, 'x', 'q', 0x03, 'C', 0x01,
                                  'y', 0x8a, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 'e', 's', '.'});
  Document doc = parseOk(data);
  const Value* list = doc.get(doc.root(), "a");
  ASSERT_NE(list, nullptr);
  auto items = doc.items(*list);
  ASSERT_EQ(items.size(), 8u);
  EXPECT_EQ(items[0].i, 1);
  EXPECT_EQ(items[1].i, -2);
  EXPECT_EQ(items[2].f, 3.5);
  EXPECT_EQ(items[3].kind, Kind::None);
  EXPECT_EQ(items[4].kind, Kind::Bool);
  EXPECT_EQ(items[4].i, 1);
  EXPECT_EQ(doc.str(items[5]), "x");
  EXPECT_EQ(items[6].kind, Kind::Bytes);
  EXPECT_EQ(doc.str(items[6]), "y");
  EXPECT_EQ(items[7].kind, Kind::BigInt);  // 2**70 does not fit in 64 bits
}

TEST(Pickle, LongsThatFitBecomeInts) {
  // LONG1 with 8 bytes: 2**63 - 1; with 9 bytes: -(2**63); with 2 bytes: -1.
  Document a = parseOk(bytes({0x80, 0x02, 0x8a, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, '.'}));
  EXPECT_EQ(a.root().kind, Kind::Int);
  EXPECT_EQ(a.root().i, INT64_MAX);
  Document b = parseOk(bytes({0x80, 0x02, 0x8a, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, '.'}));
  EXPECT_EQ(b.root().i, INT64_MIN);
  Document c = parseOk(bytes({0x80, 0x02, 0x8a, 0x02, 0xff, 0xff, '.'}));
  EXPECT_EQ(c.root().i, -1);
  // 2**63 needs 9 bytes and does not fit.
  Document d = parseOk(bytes({0x80, 0x02, 0x8a, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, '.'}));
  EXPECT_EQ(d.root().kind, Kind::BigInt);
}

TEST(Pickle, Protocol0TextOpcodes) {
  // pickle.dumps({'k': [1, 'é', 2.5, True]}, protocol=0)
  const std::string data = "(dp0\nVk\np1\n(lp2\nI1\naV\\u00e9\np3\naF2.5\naI01\nas.";
  Document doc = parseOk(data);
  const Value* list = doc.get(doc.root(), "k");
  ASSERT_NE(list, nullptr);
  auto items = doc.items(*list);
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].i, 1);
  EXPECT_EQ(doc.str(items[1]), "\xc3\xa9");
  EXPECT_EQ(items[2].f, 2.5);
  EXPECT_EQ(items[3].kind, Kind::Bool);
}

TEST(Pickle, Protocol0QuotedString) {
  Document doc = parseOk("S'it\\'s\\n\\x41'\np0\n.");
  EXPECT_EQ(doc.str(doc.root()), "it's\nA");
}

TEST(Pickle, MemoSharesMutableContainers) {
  // x = []; pickle.dumps([x, x], protocol=4) with x appended to after memoisation.
  const std::string data = bytes({0x80, 0x04, ']', 0x94, '(', ']', 0x94, 'h', 0x01, 'e', 'h', 0x01, 'K', 0x07, 'a', '0', '.'});
  // Stack: outer list [inner, inner], then APPEND 7 onto inner (via BINGET), POP.
  Document doc = parseOk(data);
  auto outer = doc.items(doc.root());
  ASSERT_EQ(outer.size(), 2u);
  EXPECT_EQ(outer[0].container, outer[1].container);
  ASSERT_EQ(doc.items(outer[0]).size(), 1u);
  EXPECT_EQ(doc.items(outer[1])[0].i, 7);
}

TEST(Pickle, SetsAndFrozensets) {
  // pickle.dumps({1, 2}, protocol=4) ; frozenset via MARK ... FROZENSET
  Document s = parseOk(bytes({0x80, 0x04, 0x8f, 0x94, '(', 'K', 0x01, 'K', 0x02, 0x90, '.'}));
  EXPECT_EQ(s.root().kind, Kind::Set);
  EXPECT_EQ(s.items(s.root()).size(), 2u);
  Document f = parseOk(bytes({0x80, 0x04, '(', 'K', 0x01, 0x91, '.'}));
  EXPECT_EQ(f.items(f.root()).size(), 1u);
}

struct Refused {
  const char* file;
  const char* opcode;
  int offset;
};

class HostilePickle : public ::testing::TestWithParam<Refused> {};

TEST_P(HostilePickle, IsRefusedWithOpcodeAndOffset) {
  auto data = readFileBytes(test::dataPath(GetParam().file));
  ASSERT_TRUE(data.ok());
  auto doc = parse(std::move(*data));
  ASSERT_FALSE(doc.ok());
  const std::string& message = doc.error().message;
  EXPECT_NE(message.find(GetParam().opcode), std::string::npos) << message;
  EXPECT_NE(message.find("byte " + std::to_string(GetParam().offset) + ":"), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Files, HostilePickle,
                         ::testing::Values(Refused{"hostile_global_reduce_p0.pickle", "GLOBAL", 0},
                                           Refused{"hostile_global_reduce_p2.pickle", "GLOBAL", 32},
                                           Refused{"hostile_stack_global_p4.pickle", "STACK_GLOBAL", 30},
                                           Refused{"hostile_build_p2.pickle", "GLOBAL", 2},
                                           Refused{"hostile_inst_p0.pickle", "INST", 1},
                                           Refused{"hostile_persid_p0.pickle", "PERSID", 0}));

TEST(Pickle, EveryCallingOpcodeIsRefusedByName) {
  const std::pair<int, const char*> opcodes[] = {
      {'c', "GLOBAL"},  {0x93, "STACK_GLOBAL"}, {'R', "REDUCE"}, {'b', "BUILD"},  {'i', "INST"},
      {'o', "OBJ"},     {0x81, "NEWOBJ"},       {0x92, "NEWOBJ_EX"}, {'P', "PERSID"}, {'Q', "BINPERSID"},
      {0x82, "EXT1"},   {0x83, "EXT2"},         {0x84, "EXT4"}};
  for (auto [op, opname] : opcodes) {
    auto doc = parse(bytes({0x80, 0x04, 'N', op, '.'}));
    ASSERT_FALSE(doc.ok()) << opname;
    EXPECT_EQ(doc.error().message.rfind("byte 3: opcode " + std::string(opname) + " ", 0), 0u) << doc.error().message;
  }
}

TEST(Pickle, StructuralErrorsAreValues) {
  EXPECT_FALSE(parse("").ok());
  EXPECT_FALSE(parse(bytes({0x80, 0x02})).ok());                 // no STOP
  EXPECT_FALSE(parse(bytes({0x80, 0x06, 'N', '.'})).ok());       // protocol 6
  EXPECT_FALSE(parse(bytes({0x80, 0x02, '.'})).ok());            // STOP on empty stack
  EXPECT_FALSE(parse(bytes({0x80, 0x02, 'e', '.'})).ok());       // APPENDS without MARK
  EXPECT_FALSE(parse(bytes({0x80, 0x02, 'K', 1, 'a', '.'})).ok());  // APPEND without list
  EXPECT_FALSE(parse(bytes({0x80, 0x02, 'K', 1, 'K', 2, 's', '.'})).ok());
  EXPECT_FALSE(parse(bytes({0x80, 0x02, 'h', 5, '.'})).ok());    // BINGET of nothing
  EXPECT_FALSE(parse(bytes({0x80, 0x02, 'N', 'r', 0xff, 0xff, 0xff, 0x7f, '.'})).ok());  // memo far away
  EXPECT_FALSE(parse(bytes({0x80, 0x02, 'X', 0xff, 0xff, 0xff, 0xff, 'a', '.'})).ok());  // length > file
  EXPECT_FALSE(parse(bytes({0x80, 0x02, 0xff, '.'})).ok());      // unknown opcode
  auto unknown = parse(bytes({0x80, 0x02, 0xff, '.'}));
  EXPECT_NE(unknown.error().message.find("byte 2: unknown opcode 0xff"), std::string::npos);
}

TEST(Pickle, RealSnapshotParses) {
  auto data = readFileBytes(test::dataPath("anatomy_adam_snapshot.pickle"));
  ASSERT_TRUE(data.ok());
  Document doc = parseOk(std::move(*data));
  ASSERT_EQ(doc.root().kind, Kind::Dict);
  const Value* traces = doc.get(doc.root(), "device_traces");
  ASSERT_NE(traces, nullptr);
  ASSERT_EQ(doc.items(*traces).size(), 1u);
  EXPECT_EQ(doc.items(doc.items(*traces)[0]).size(), 352u);
}

}  // namespace
}  // namespace sawtooth::pickle
