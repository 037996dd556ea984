// A recorded process as the recorder sees it, without a process: frames in, a .sawtooth out with
// phases, categories (the same rules as the built-in workloads), stacks, kernels and the
// completeness marking. Also where files go.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/recording/wire.h"
#include "capture/inject/wire_connection.h"
#include "app/sawtooth-record/program/output_paths.h"
#include "capture/ingest/process_recording.h"
#include "capture/ingest/wire_reader.h"
#include "core/io/native_format.h"
#include "core/io/native_schema.h"
#include "core/model/meta_keys.h"
#include "core/model/recording_status.h"

namespace sawtooth::record {
namespace {

namespace fs = std::filesystem;

std::string tempDir(const std::string& name) {
  const auto dir = fs::temp_directory_path() / "sawtooth-record-tests" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

constexpr int64_t kT0 = 1'000'000;
constexpr int kConn = 1;

struct Sender {
  ProcessRecording& p;
  uint8_t stream = 0;
  void frame(wire::FrameType type, std::string_view payload) {
    wire::Header h{static_cast<uint32_t>(payload.size()), type, stream, 0};
    Status st = p.onFrame(kConn, h, payload);
    ASSERT_TRUE(st.ok()) << st.error().message;
  }
  void records(std::vector<wire::Record> rs) {
    std::string payload;
    for (auto& r : rs) wire::appendPod(payload, r);
    frame(wire::FrameType::Records, payload);
  }
};

wire::Record mem(int64_t t, Action a, uint64_t addr, int64_t size, uint32_t stack = wire::kNoStack) {
  return {kT0 + t, addr, size, 0, stack, 0, static_cast<uint8_t>(a), static_cast<uint8_t>(wire::RecordKind::Allocator)};
}
wire::Record marker(int64_t t, wire::RecordKind k, uint64_t name) {
  return {kT0 + t, name, 0, 0, wire::kNoStack, 0, 0, static_cast<uint8_t>(k)};
}
wire::Record tag(int64_t t, uint64_t addr, Category c) {
  return {kT0 + t, addr, 0, 0, wire::kNoStack, 0, static_cast<uint8_t>(c), static_cast<uint8_t>(wire::RecordKind::Tag)};
}

RecordingContext contextFor(const std::string& path) {
  RecordingContext c;
  c.t0_ns = kT0;
  c.command = {"python", "train.py", "--lr", "3e-4"};
  c.cwd = "/work";
  c.meta = {{"env.CUDA_VISIBLE_DEVICES", "0"}};
  c.claim_path = [path](int, int) { return OutputClaim::claim(path, OutputClaim::Existing::Replace); };
  c.hold_back_ns = 0;
  return c;
}

TEST(ProcessRecording, OneTrainingStepBecomesPhasesAndCategories) {
  const std::string path = tempDir("step") + "/train.sawtooth";
  RecordingContext context = contextFor(path);
  std::vector<std::string> started;
  context.file_started = [&](int pid, int rank, const std::string& file) {
    started.push_back(fmt::format("{} {} {}", pid, rank, file));
  };
  ProcessRecording p(4242, context);
  ASSERT_TRUE(p.onHello(kConn, {{"role", "shim"}, {"rank", -1}, {"torch", "2.11.0"}}).ok());
  Sender s{p};
  wire::NameTable names;
  const uint32_t forward = names.id("forward"), backward = names.id("backward"), optimizer = names.id("optimizer"),
                 range = names.id("my block");
  std::string names_frame;
  names.appendNew(names_frame, 0);
  s.frame(wire::FrameType::Names, std::string_view(names_frame).substr(wire::kHeaderSize));
  wire::StackTable stacks;
  const uint32_t stack = stacks.stack({stacks.frame("forward", "model.py", 3), stacks.frame("<module>", "train.py", 9)});
  std::string stack_frames;
  stacks.appendNew(stack_frames, 0);
  FrameReader reader;
  ASSERT_TRUE(reader.feed(stack_frames, [&](const wire::Header& h, std::string_view pl) { return p.onFrame(kConn, h, pl); }).ok());

  s.records({
      mem(10, Action::Alloc, 0x1000, 400),  // the weight, tagged at the first forward
      marker(20, wire::RecordKind::PhaseBegin, forward),
      tag(21, 0x1000, Category::Parameter),
      {kT0 + 22, range, 0, 77, wire::kNoStack, 0, 0, static_cast<uint8_t>(wire::RecordKind::AnnotationBegin)},
      mem(25, Action::Alloc, 0x2000, 100, stack),  // an activation: born in forward, alive at backward
      mem(26, Action::Alloc, 0x3000, 50),          // a temporary: born and freed in forward
      mem(27, Action::FreeCompleted, 0x3000, 50),
      {kT0 + 28, 0, 0, 77, wire::kNoStack, 0, 0, static_cast<uint8_t>(wire::RecordKind::AnnotationEnd)},
      marker(30, wire::RecordKind::PhaseEnd, forward),
      marker(31, wire::RecordKind::PhaseBegin, backward),
      mem(32, Action::Alloc, 0x4000, 400),  // the gradient
      mem(33, Action::FreeCompleted, 0x2000, 100),
      marker(40, wire::RecordKind::PhaseEnd, backward),
      tag(41, 0x4000, Category::Gradient),
      marker(42, wire::RecordKind::PhaseBegin, optimizer),
      mem(43, Action::Alloc, 0x5000, 800),
      marker(44, wire::RecordKind::PhaseEnd, optimizer),
      tag(45, 0x5000, Category::OptimizerState),
  });
  p.tick(kT0 + 1'000'000);
  std::string bye;
  wire::appendFrame(bye, wire::FrameType::Bye, 0, R"({"reason": "exit"})");
  ASSERT_TRUE(reader.feed(bye, [&](const wire::Header& h, std::string_view pl) { return p.onFrame(kConn, h, pl); }).ok());
  p.onConnectionClosed(kConn);
  ASSERT_TRUE(p.finish("exit 0").ok());
  EXPECT_TRUE(p.clean());
  ASSERT_EQ(p.path(), path);

  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const Trace& t = *trace;
  EXPECT_EQ(t.meta.at(std::string(meta::kComplete)), "true");
  EXPECT_EQ(t.meta.at("program.exit"), "exit 0");
  EXPECT_EQ(t.meta.at("program.torch"), "2.11.0");
  EXPECT_EQ(t.meta.at("env.CUDA_VISIBLE_DEVICES"), "0");
  ASSERT_EQ(t.runs.size(), 1u);
  EXPECT_EQ(t.runs[0].name, "python train.py --lr 3e-4");
  EXPECT_EQ(t.runs[0].workload, "program");

  std::map<uint64_t, Category> alloc_category;
  for (size_t i = 0; i < t.events.size(); ++i)
    if (t.events.action()[i] == Action::Alloc) alloc_category[t.events.addr()[i]] = t.events.category()[i];
  EXPECT_EQ(alloc_category[0x1000], Category::Parameter);
  EXPECT_EQ(alloc_category[0x2000], Category::Activation);
  EXPECT_EQ(alloc_category[0x3000], Category::Temporary);
  EXPECT_EQ(alloc_category[0x4000], Category::Gradient);
  EXPECT_EQ(alloc_category[0x5000], Category::OptimizerState);

  std::vector<std::string> phase_names;
  bool annotation = false;
  for (const Phase& ph : t.phases) {
    if (ph.kind == PhaseKind::Annotation) {
      annotation = ph.name == "my block" && ph.end_ns - ph.begin_ns == 6;
      continue;
    }
    phase_names.push_back(ph.name);
  }
  EXPECT_EQ(phase_names, (std::vector<std::string>{"forward", "backward", "optimizer"}));
  EXPECT_TRUE(annotation);
  // The activation keeps its stack, innermost frame first.
  for (size_t i = 0; i < t.events.size(); ++i)
    if (t.events.addr()[i] == 0x2000 && t.events.action()[i] == Action::Alloc) {
      const auto frames = t.stacks.stack(t.events.stack()[i]);
      ASSERT_EQ(frames.size(), 2u);
      EXPECT_EQ(t.stacks.frame(frames[0]).name, "forward");
      EXPECT_EQ(t.stacks.frame(frames[1]).file, "train.py");
    }
  EXPECT_EQ(started, (std::vector<std::string>{"4242 -1 " + path}));
}

TEST(ProcessRecording, AProcessThatDiesBeforeItsLastDeliveryIsMarkedIncomplete) {
  const std::string path = tempDir("killed") + "/killed.sawtooth";
  RecordingContext context = contextFor(path);
  ProcessRecording p(7, context);
  ASSERT_TRUE(p.onHello(kConn, {{"role", "shim"}}).ok());
  Sender s{p};
  s.records({mem(5, Action::Alloc, 0x10, 64)});
  p.onConnectionClosed(kConn);  // no Bye
  ASSERT_TRUE(p.finish("killed by signal 9 (Killed)", 9).ok());
  EXPECT_FALSE(p.clean());
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->meta.count(std::string(meta::kComplete)) ? trace->meta.at(std::string(meta::kComplete))
                                                                  : "",
            "false");
  EXPECT_EQ(trace->meta.at(std::string(meta::kIncompleteReason)), "killed") << "the documented keyword";
  EXPECT_NE(trace->meta.at(std::string(meta::kIncompleteDetail)).find("killed by signal 9"), std::string::npos);
  EXPECT_EQ(trace->events.size(), 1u);
}

// How a process ended is a documented keyword (core/model/recording_status.h), the sentence in
// incomplete_detail; the file is private (mode 0600: it holds the command, folder and environment).
TEST(ProcessRecording, IncompleteReasonsAreKeywordsAndFilesArePrivate) {
  struct Case {
    std::string exit;
    int signal;
    std::string reason;
  };
  for (const Case& c : {Case{"killed by signal 11 (Segmentation fault)", 11, "crashed"},
                        Case{"killed by signal 15 (Terminated)", 15, "killed"},
                        Case{"exit 0", 0, std::string(kNoFinalDelivery)}, Case{"", 0, "killed"}}) {
    const std::string path = tempDir("reason") + "/r.sawtooth";
    RecordingContext context = contextFor(path);
    ProcessRecording p(9, context);
    ASSERT_TRUE(p.onHello(kConn, {{"role", "shim"}}).ok());
    Sender s{p};
    s.records({mem(5, Action::Alloc, 0x10, 64)});
    p.onConnectionClosed(kConn);  // no Bye
    ASSERT_TRUE(p.finish(c.exit, c.signal).ok());
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    auto trace = readNative(path);
    ASSERT_TRUE(trace.ok());
    EXPECT_EQ(trace->meta.at(std::string(meta::kIncompleteReason)), c.reason) << c.exit;
    EXPECT_NE(trace->meta.at(std::string(meta::kIncompleteDetail)).find("final delivery"), std::string::npos);
  }
}

// A program's notices and meta cannot grow the recorder or the file without end: a bounded number
// is kept and echoed, the rest counted (capture.ingest).
TEST(ProcessRecording, NoticesAndMetaAreBounded) {
  const std::string path = tempDir("notices") + "/n.sawtooth";
  RecordingContext context = contextFor(path);
  size_t echoed = 0;
  context.notify = [&](const std::string&, const std::string&) { ++echoed; };
  ProcessRecording p(10, context);
  ASSERT_TRUE(p.onHello(kConn, {{"role", "shim"}}).ok());
  Sender s{p};
  s.records({mem(5, Action::Alloc, 0x10, 64)});
  const std::string notice = nlohmann::json{{"level", "warning"}, {"message", std::string(10'000, 'n')}}.dump();
  for (int i = 0; i < 1000; ++i) s.frame(wire::FrameType::Notice, notice);
  nlohmann::json keys;
  for (int i = 0; i < 5000; ++i) keys[fmt::format("key{}", i)] = "v";
  s.frame(wire::FrameType::Meta, keys.dump());
  s.frame(wire::FrameType::Bye, R"({"reason": "exit"})");
  ASSERT_TRUE(p.finish("exit 0").ok());
  EXPECT_LE(echoed, 21u) << "20 notices and one line that says the rest are in the file";
  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok());
  EXPECT_LE(trace->meta.at("notices").size(), 200u * 2060u);
  const auto ingest = nlohmann::json::parse(trace->meta.at("capture.ingest"));
  EXPECT_EQ(ingest.at("notices").get<int>(), 1000);
  EXPECT_EQ(ingest.at("notices_dropped").get<int>(), 800);
  EXPECT_GT(ingest.at("meta_dropped").get<int>(), 0);
}

TEST(ProcessRecording, RefusesRecordsNamingUndefinedStacksOrActions) {
  RecordingContext context = contextFor(tempDir("hostile") + "/h.sawtooth");
  ProcessRecording p(8, context);
  ASSERT_TRUE(p.onHello(kConn, {{"role", "tracker"}}).ok());
  std::string payload;
  wire::appendPod(payload, mem(1, Action::Alloc, 0x10, 8, /*stack*/ 99));
  EXPECT_FALSE(p.onFrame(kConn, {static_cast<uint32_t>(payload.size()), wire::FrameType::Records, 0, 0}, payload).ok());
  payload.clear();
  wire::Record bad = mem(1, Action::Alloc, 0x10, 8);
  bad.action = 200;
  wire::appendPod(payload, bad);
  EXPECT_FALSE(p.onFrame(kConn, {static_cast<uint32_t>(payload.size()), wire::FrameType::Records, 0, 0}, payload).ok());
  EXPECT_FALSE(p.onFrame(2, {0, wire::FrameType::Meta, 0, 0}, "").ok()) << "a frame before its connection's hello";
  EXPECT_FALSE(p.onHello(kConn, {{"role", "again"}}).ok());
  ASSERT_TRUE(p.finish("").ok());
  EXPECT_FALSE(p.hasFile()) << "nothing valid was recorded";
}

std::string moduleEntry(uint32_t id, uint32_t parent, int64_t parameter_bytes, std::string_view name,
                        std::string_view class_name) {
  std::string out;
  wire::appendPod(out, id);
  wire::appendPod(out, parent);
  wire::appendPod(out, parameter_bytes);
  wire::appendPod(out, static_cast<uint16_t>(name.size()));
  wire::appendPod(out, static_cast<uint16_t>(class_name.size()));
  return out + std::string(name) + std::string(class_name);
}

// Issue 23 on the wire: the shim names the modules (its ids, one process's for all its
// connections), the tracker's allocator records say their module and pass (its hello says so),
// and the shim's marks of each call become the file's module calls. A module named again (the
// model built anew) is the same module of the file.
TEST(ProcessRecording, ModulesFromTheShimAndEachAllocationsModuleFromTheTracker) {
  const std::string path = tempDir("modules") + "/modules.sawtooth";
  RecordingContext context = contextFor(path);
  ProcessRecording p(4243, context);
  constexpr int kShim = 1, kTracker = 2;
  ASSERT_TRUE(p.onHello(kShim, {{"role", "shim"}}).ok());
  ASSERT_TRUE(p.onHello(kTracker, {{"role", "tracker"}, {"modules", true}}).ok());
  auto send = [&](int connection, wire::FrameType type, const std::string& payload) {
    Status st = p.onFrame(connection, {static_cast<uint32_t>(payload.size()), type, 0, 0}, payload);
    ASSERT_TRUE(st.ok()) << st.error().message;
  };
  send(kShim, wire::FrameType::Modules,
       moduleEntry(0, wire::kNoModule, 0, "Net", "Net") + moduleEntry(1, 0, 400, "0", "Linear"));
  send(kShim, wire::FrameType::Modules, moduleEntry(7, wire::kNoModule, 0, "Net", "Net") +
                                           moduleEntry(8, 7, 400, "0", "Linear"));  // built again: the same
  auto with = [](wire::Record r, uint32_t module, Pass pass) {
    r.module = module;
    r.pass = static_cast<uint8_t>(pass);
    return r;
  };
  auto call = [](int64_t t, wire::RecordKind kind, uint32_t module, uint64_t thread) {
    wire::Record r{kT0 + t, 0, 0, thread, wire::kNoStack, 0, 0, static_cast<uint8_t>(kind)};
    r.module = module;
    r.pass = static_cast<uint8_t>(Pass::Forward);
    return r;
  };
  std::string records;
  for (const wire::Record& r : {call(10, wire::RecordKind::ModuleEnter, 0, 5), call(11, wire::RecordKind::ModuleEnter, 8, 5),
                                with(mem(12, Action::Alloc, 0x1000, 100), 8, Pass::Forward),
                                call(13, wire::RecordKind::ModuleExit, 8, 5), call(14, wire::RecordKind::ModuleExit, 0, 5),
                                with(mem(20, Action::Alloc, 0x2000, 50), 1, Pass::Backward),
                                with(mem(21, Action::Alloc, 0x3000, 8), wire::kNoModule, Pass::Backward),
                                with(mem(22, Action::Alloc, 0x4000, 8), 99, Pass::Backward)})  // never named
    wire::appendPod(records, r);
  send(kTracker, wire::FrameType::Records, records);
  p.onConnectionClosed(kShim);
  p.onConnectionClosed(kTracker);
  ASSERT_TRUE(p.finish("exit 0").ok());

  auto trace = readNative(path);
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const Trace& t = *trace;
  ASSERT_EQ(t.modules.size(), 2u) << "one module per (name, class, parent)";
  EXPECT_EQ(t.modules.fullName(1), "Net.0");
  EXPECT_EQ(t.modules.modules[1].parameter_bytes, 400);
  ASSERT_EQ(t.events.size(), 4u);
  EXPECT_EQ(t.events.module(0), 1u);
  EXPECT_EQ(t.events.pass(0), Pass::Forward);
  EXPECT_EQ(t.events.module(1), 1u);
  EXPECT_EQ(t.events.pass(1), Pass::Backward);
  EXPECT_EQ(t.events.module(2), kNoModule);
  EXPECT_EQ(t.events.module(3), kNoModule);
  EXPECT_EQ(t.meta.at("capture.unknown_modules"), "1");
  ASSERT_EQ(t.modules.calls.size(), 2u);
  EXPECT_EQ(t.modules.calls[0].module, 0u);  // by their beginning: Net from 10 to 14, Net.0 from 11 to 13
  EXPECT_EQ(t.modules.calls[0].end_ns - t.modules.calls[0].begin_ns, 4);
  EXPECT_EQ(t.modules.calls[1].module, 1u);
  EXPECT_EQ(t.modules.calls[1].end_ns - t.modules.calls[1].begin_ns, 2);
}

TEST(ProcessRecording, RefusesModulesNamingAnUnknownParentAndRecordsOfAnUnknownPass) {
  RecordingContext context = contextFor(tempDir("hostile-modules") + "/h.sawtooth");
  ProcessRecording p(9, context);
  ASSERT_TRUE(p.onHello(kConn, {{"role", "shim"}}).ok());
  const std::string orphan = moduleEntry(3, 2, 0, "x", "Linear");
  Status st = p.onFrame(kConn, {static_cast<uint32_t>(orphan.size()), wire::FrameType::Modules, 0, 0}, orphan);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "module 3 names parent 2, which was never named");
  const std::string twice = moduleEntry(0, wire::kNoModule, 0, "Net", "Net") + moduleEntry(0, wire::kNoModule, 0, "B", "B");
  st = p.onFrame(kConn, {static_cast<uint32_t>(twice.size()), wire::FrameType::Modules, 0, 0}, twice);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "module 0 is named twice");
  const std::string cut = moduleEntry(5, wire::kNoModule, 0, "Net", "Net").substr(0, 21);
  EXPECT_FALSE(p.onFrame(kConn, {static_cast<uint32_t>(cut.size()), wire::FrameType::Modules, 0, 0}, cut).ok());
  std::string payload;
  wire::Record bad = mem(1, Action::Alloc, 0x10, 8);
  bad.pass = 9;
  wire::appendPod(payload, bad);
  st = p.onFrame(kConn, {static_cast<uint32_t>(payload.size()), wire::FrameType::Records, 0, 0}, payload);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "record with unknown pass 9");
  ASSERT_TRUE(p.finish("").ok());
}

TEST(OutputPaths, FirstUnrankedProcessGetsTheFileRanksTheirOwnAndMergeTheRest) {
  const std::string dir = tempDir("paths");
  const std::string out = dir + "/run.sawtooth";
  OutputPaths paths(out, false);
  EXPECT_EQ(paths.pathFor(100, -1), out);
  EXPECT_EQ(paths.pathFor(101, -1), dir + "/run.pid101.sawtooth");
  EXPECT_EQ(paths.pathFor(102, 1), dir + "/run.rank1.sawtooth");
  EXPECT_EQ(paths.pathFor(103, 1), dir + "/run.rank1.2.sawtooth") << "two processes claimed rank 1";
  EXPECT_EQ(paths.mergedPath(), dir + "/run.ranks.sawtooth") << "the file asked for is taken";

  // A child of a recorded process (subprocess, multiprocessing) that delivers before its parent
  // does not take the file asked for: the program's own process does.
  OutputPaths family(dir + "/family.sawtooth", false);
  EXPECT_EQ(family.pathFor(201, -1, /*child*/ true), dir + "/family.pid201.sawtooth");
  EXPECT_EQ(family.pathFor(200, -1), dir + "/family.sawtooth");

  std::ofstream(dir + "/other.rank0.sawtooth") << "an earlier recording";
  OutputPaths careful(dir + "/other.sawtooth", false);
  EXPECT_EQ(careful.pathFor(5, 0), dir + "/other.rank0.2.sawtooth") << "an existing file is never replaced";
  EXPECT_EQ(careful.mergedPath(), dir + "/other.sawtooth");
}

TEST(OutputPaths, DefaultNamesAndRefusals) {
  const std::string dir = tempDir("defaults");
  const std::time_t when = 1'800'000'000;
  const std::string name = defaultOutPath({"python", "-u", "scripts/train.py", "--x"}, when);
  EXPECT_TRUE(name.starts_with("train-")) << name;
  EXPECT_TRUE(name.ends_with(".sawtooth"));
  EXPECT_TRUE(defaultOutPath({"/usr/bin/env"}, when).starts_with("env-"));
  EXPECT_FALSE(OutputPaths::claimFirst(dir, true).ok()) << "a folder";
  std::ofstream(dir + "/x.sawtooth") << "x";
  EXPECT_FALSE(OutputPaths::claimFirst(dir + "/x.sawtooth", false).ok());
  EXPECT_TRUE(OutputPaths::claimFirst(dir + "/x.sawtooth", true).ok());
  EXPECT_FALSE(OutputPaths::claimFirst(dir + "/missing/x.sawtooth", true).ok());
  auto fresh = OutputPaths::claimFirst(dir + "/new.sawtooth", false);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(OutputPaths::claimFirst(dir + "/new.sawtooth", true).ok()) << "claimed: being written";
  (*fresh)->abandonUnused();
  EXPECT_FALSE(fs::exists(dir + "/new.sawtooth")) << "an unused claim leaves nothing behind";
}

// --out refuses, before the program runs and even with --force, what a recording never replaces:
// a link, a FIFO, a device.
TEST(OutputPaths, NeverReplacesLinksOrSpecialFiles) {
  const std::string dir = tempDir("special");
  std::ofstream(dir + "/target.sawtooth") << "precious";
  fs::create_symlink(dir + "/target.sawtooth", dir + "/link.sawtooth");
  ASSERT_EQ(mkfifo((dir + "/fifo.sawtooth").c_str(), 0600), 0);
  for (const std::string& path : {dir + "/link.sawtooth", dir + "/fifo.sawtooth", std::string("/dev/full")}) {
    auto claimed = OutputPaths::claimFirst(path, true);
    ASSERT_FALSE(claimed.ok()) << path;
    EXPECT_EQ(claimed.error().message.find("exists (--force"), std::string::npos) << claimed.error().message;
  }
  std::ifstream in(dir + "/target.sawtooth");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "precious");
}

// A user who may not write /dev (as most may not) is told what /dev/full is, not that its folder is
// not writable; run as root, the check drops to nobody in a child process.
TEST(OutputPaths, ASpecialFileIsRefusedForWhatItIsWhoeverAsks) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (geteuid() == 0 && setuid(65534) != 0) _exit(3);
    const auto problem = checkOutFolder("/dev/full");
    _exit(!problem ? 2 : problem->find("not a regular file") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: refused for another reason (the folder); 2: not refused; 3: setuid failed";
}

}  // namespace
}  // namespace sawtooth::record
