// The writer's module attribution (issue 23): the module tree and each call of a module written
// as they come; an event whose source knows its module keeps it, any other belongs to the
// innermost module open on the thread that entered a module last; a tag naming a module gives it
// the block, rewriting an allocation already in the file.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "capture/writer/trace_writer.h"
#include "core/io/native_format.h"

namespace sawtooth::capture {
namespace {

std::string tempFile(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / "sawtooth-writer-tests";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

CaptureRecord alloc(int64_t t, uint64_t addr, int64_t size) {
  CaptureRecord r;
  r.t_ns = t;
  r.kind = RecordKind::Memory;
  r.action = Action::Alloc;
  r.addr = addr;
  r.size = size;
  return r;
}

CaptureRecord call(int64_t t, RecordKind kind, uint32_t module, uint64_t thread, Pass pass = Pass::Forward) {
  CaptureRecord r;
  r.t_ns = t;
  r.kind = kind;
  r.module = module;
  r.stream = thread;
  r.pass = pass;
  return r;
}

CaptureRecord phase(int64_t t, RecordKind kind, uint32_t id) {
  CaptureRecord r;
  r.t_ns = t;
  r.kind = kind;
  r.id = id;
  return r;
}

TEST(ModuleAttribution, ByTheSourceByTheOpenCallAndByTags) {
  const std::string path = tempFile("modules.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue queue(1024);
  TraceWriter writer(std::move(*file), /*t0*/ 1000);
  writer.addQueue(&queue);
  writer.defineModule(0, Module{"Net", "Net", kNoModule, 0});
  writer.defineModule(1, Module{"0", "Linear", 0, 64});
  writer.defineModule(2, Module{"CrossEntropyLoss", "CrossEntropyLoss", kNoModule, 0});
  writer.definePhase(0, "forward", kNoRun);
  writer.definePhase(1, "backward", kNoRun);

  queue.tryPush(alloc(1001, 0xA000, 64));                        // 0: the weight, before any call
  queue.tryPush(phase(1010, RecordKind::PhaseBegin, 0));
  queue.tryPush(call(1011, RecordKind::ModuleEnter, 0, 7));
  queue.tryPush(call(1012, RecordKind::ModuleEnter, 1, 7));
  queue.tryPush(alloc(1013, 0xB000, 100));                       // 1: Net.0's, by time
  queue.tryPush(call(1014, RecordKind::ModuleExit, 1, 7));
  queue.tryPush(alloc(1015, 0xC000, 10));                        // 2: Net's own
  queue.tryPush(call(1016, RecordKind::ModuleExit, 0, 7));
  queue.tryPush(alloc(1017, 0xD000, 4));                         // 3: outside modules (the loss's input)
  writer.flushOnce(true);  // the weight's row is in the file before its tag comes
  CaptureRecord tag;
  tag.t_ns = 1018;
  tag.kind = RecordKind::Tag;
  tag.addr = 0xA000;
  tag.category = Category::Parameter;
  tag.module = 1;
  queue.tryPush(tag);
  queue.tryPush(phase(1020, RecordKind::PhaseEnd, 0));
  queue.tryPush(phase(1021, RecordKind::PhaseBegin, 1));
  CaptureRecord known = alloc(1022, 0xE000, 50);                 // 4: a tracker's word: Net.0, backward
  known.module = 1;
  known.pass = Pass::Backward;
  known.module_known = true;
  queue.tryPush(known);
  CaptureRecord none = alloc(1023, 0xF000, 8);                   // 5: a tracker's word: outside
  none.module_known = true;
  queue.tryPush(none);
  queue.tryPush(call(1024, RecordKind::ModuleEnter, 2, 9));      // another thread, left open
  queue.tryPush(phase(1030, RecordKind::PhaseEnd, 1));
  ASSERT_TRUE(writer.finish().ok()) << writer.error();

  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->modules.size(), 3u);
  EXPECT_EQ(trace->modules.fullName(1), "Net.0");
  EXPECT_EQ(trace->modules.modules[1].parameter_bytes, 64);
  const EventStore& ev = trace->events;
  ASSERT_EQ(ev.size(), 6u);
  EXPECT_EQ(ev.module(0), 1u);  // given to Net.0 by its parameter's tag, after it was written
  EXPECT_EQ(ev.category()[0], Category::Parameter);
  EXPECT_EQ(ev.pass(0), Pass::None);
  EXPECT_EQ(ev.module(1), 1u);
  EXPECT_EQ(ev.pass(1), Pass::Forward);
  EXPECT_EQ(ev.module(2), 0u);
  EXPECT_EQ(ev.module(3), kNoModule);
  EXPECT_EQ(ev.pass(3), Pass::Forward);  // the forward phase's
  EXPECT_EQ(ev.module(4), 1u);
  EXPECT_EQ(ev.pass(4), Pass::Backward);
  EXPECT_EQ(ev.module(5), kNoModule);
  EXPECT_EQ(ev.pass(5), Pass::Backward);  // the backward phase's: the source knew no pass
  ASSERT_EQ(trace->modules.calls.size(), 3u);
  EXPECT_EQ(trace->modules.calls[0].module, 0u);
  EXPECT_EQ(trace->modules.calls[0].begin_ns, 11);
  EXPECT_EQ(trace->modules.calls[0].end_ns, 16);
  EXPECT_EQ(trace->modules.calls[1].module, 1u);
  EXPECT_EQ(trace->modules.calls[1].end_ns - trace->modules.calls[1].begin_ns, 2);
  EXPECT_EQ(trace->modules.calls[2].module, 2u);  // left open: ends where the recording does
  EXPECT_EQ(trace->modules.calls[2].end_ns, 30);
}

TEST(ModuleAttribution, AMissedExitEndsTheCallsOpenInsideIt) {
  const std::string path = tempFile("modules-missed-exit.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue queue(64);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&queue);
  writer.defineModule(0, Module{"Net", "Net", kNoModule, 0});
  writer.defineModule(1, Module{"a", "Linear", 0, 0});
  queue.tryPush(call(1, RecordKind::ModuleEnter, 0, 1));
  queue.tryPush(call(2, RecordKind::ModuleEnter, 1, 1));  // its exit never comes
  queue.tryPush(call(5, RecordKind::ModuleExit, 0, 1));
  queue.tryPush(alloc(6, 0x10, 8));
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->modules.calls.size(), 2u);
  for (const ModuleCall& c : trace->modules.calls) EXPECT_EQ(c.end_ns, 5);
  EXPECT_EQ(trace->events.module(0), kNoModule);  // after both ended
}

// The shim's portable path marks backward where each module's backward begins: the previous
// module's backward call ends there, and the allocations between belong to the one marked.
TEST(ModuleAttribution, BackwardMarksEndTheBackwardCallBefore) {
  const std::string path = tempFile("modules-backward-marks.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue queue(64);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&queue);
  writer.defineModule(0, Module{"Net", "Net", kNoModule, 0});
  writer.defineModule(1, Module{"a", "Linear", 0, 0});
  writer.defineModule(2, Module{"b", "Linear", 0, 0});
  queue.tryPush(call(10, RecordKind::ModuleEnter, 2, 1, Pass::Backward));
  queue.tryPush(alloc(11, 0x10, 8));
  queue.tryPush(call(12, RecordKind::ModuleEnter, 1, 1, Pass::Recompute));  // a recompute inside it
  queue.tryPush(call(13, RecordKind::ModuleExit, 1, 1));
  queue.tryPush(call(15, RecordKind::ModuleEnter, 1, 1, Pass::Backward));
  queue.tryPush(alloc(16, 0x20, 8));
  queue.tryPush(call(20, RecordKind::ModuleExit, 1, 1));  // backward's end
  queue.tryPush(alloc(21, 0x30, 8));
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  EXPECT_EQ(trace->events.module(0), 2u);
  EXPECT_EQ(trace->events.pass(0), Pass::Backward);
  EXPECT_EQ(trace->events.module(1), 1u);
  EXPECT_EQ(trace->events.pass(1), Pass::Backward);
  EXPECT_EQ(trace->events.module(2), kNoModule);
  std::vector<std::tuple<uint32_t, Pass, int64_t, int64_t>> calls;
  for (const ModuleCall& c : trace->modules.calls) calls.emplace_back(c.module, c.pass, c.begin_ns, c.end_ns);
  std::sort(calls.begin(), calls.end(), [](const auto& x, const auto& y) { return std::get<2>(x) < std::get<2>(y); });
  const std::vector<std::tuple<uint32_t, Pass, int64_t, int64_t>> expected = {
      {2, Pass::Backward, 10, 15}, {1, Pass::Recompute, 12, 13}, {1, Pass::Backward, 15, 20}};
  EXPECT_EQ(calls, expected);
}

// In-process (the workloads): an allocation made while autograd runs a node carries the node's
// link to its forward, and belongs to the module whose call made that node — unless a module is
// open on the thread (a recomputation), whose it is.
TEST(ModuleAttribution, BackwardByTheNodesSequenceNumber) {
  const std::string path = tempFile("modules-sequence.sawtooth");
  auto file = NativeWriter::create(path);
  ASSERT_TRUE(file.ok());
  RecordQueue queue(64);
  TraceWriter writer(std::move(*file), 0);
  writer.addQueue(&queue);
  writer.defineModule(0, Module{"Net", "Net", kNoModule, 0});
  writer.defineModule(1, Module{"a", "Linear", 0, 0});
  writer.defineModule(2, Module{"b", "Linear", 0, 0});
  auto mark = [](int64_t t, RecordKind kind, uint32_t module, uint64_t seq, Pass pass = Pass::Forward) {
    CaptureRecord r = call(t, kind, module, 7, pass);
    r.node_known = true;
    r.node_thread = 7;
    r.node_seq = seq;
    return r;
  };
  auto backward = [](int64_t t, uint64_t addr, uint64_t seq) {
    CaptureRecord r = alloc(t, addr, 8);
    r.node_known = true;
    r.node_thread = 7;
    r.node_seq = seq;
    return r;
  };
  queue.tryPush(mark(1, RecordKind::ModuleEnter, 0, 100));
  queue.tryPush(mark(2, RecordKind::ModuleEnter, 1, 100));  // a's nodes: 100 .. 102
  queue.tryPush(mark(3, RecordKind::ModuleExit, 1, 103));
  queue.tryPush(mark(4, RecordKind::ModuleEnter, 2, 103));  // b's: 103 .. 104
  queue.tryPush(mark(5, RecordKind::ModuleExit, 2, 105));
  queue.tryPush(mark(6, RecordKind::ModuleExit, 0, 106));   // Net's own: 105
  queue.tryPush(backward(10, 0x10, 104));
  queue.tryPush(backward(11, 0x20, 105));
  queue.tryPush(backward(12, 0x30, 101));
  queue.tryPush(backward(13, 0x40, 200));  // a node no call made (the loss)
  queue.tryPush(mark(14, RecordKind::ModuleEnter, 1, 300, Pass::Recompute));
  queue.tryPush(backward(15, 0x50, 104));  // inside the recompute: the open call's
  queue.tryPush(mark(16, RecordKind::ModuleExit, 1, 301));
  ASSERT_TRUE(writer.finish().ok()) << writer.error();
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->events.size(), 5u);
  EXPECT_EQ(trace->events.module(0), 2u);
  EXPECT_EQ(trace->events.module(1), 0u);
  EXPECT_EQ(trace->events.module(2), 1u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(trace->events.pass(i), Pass::Backward) << i;
  EXPECT_EQ(trace->events.module(3), kNoModule);
  EXPECT_EQ(trace->events.module(4), 1u);
  EXPECT_EQ(trace->events.pass(4), Pass::Recompute);
}

}  // namespace
}  // namespace sawtooth::capture
