// The allocator tracker of libsawtooth_torch_tracker.so without a GPU: trace entries as the CUDA
// caching allocator hands them over (with C++ stack contexts, since no Python runs here) go
// through its queue and thread to a socket, and come out as the recorder decodes them: actions
// mapped, stacks defined before the records that name them, watermarks, and a goodbye that counts.

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <torch/csrc/profiler/combined_traceback.h>

#include "capture/inject/torch_tracker.h"
#include "capture/inject/wire_connection.h"
#include "capture/ingest/wire_reader.h"
#include "core/model/action.h"

namespace sawtooth::record {
namespace {

using c10::CachingDeviceAllocator::TraceEntry;

// Stamped as PyTorch stamps them: its approximate clock, now.
c10::CachingDeviceAllocator::TraceEntry entry(TraceEntry::Action a, size_t addr, size_t size,
                                              std::shared_ptr<c10::GatheredContext> context = nullptr) {
  return TraceEntry(a, 0, addr, size, reinterpret_cast<void*>(0x77), {0, 0}, c10::getApproximateTime(),
                    std::move(context));
}

// A socket path of this process's own: ctest runs each test in its own process, several at once,
// and two tests listening at one path took each other's connections (one then waited for ever).
std::string socketPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()) + ".sock")).string();
}

// A Unix socket listening at `path` (made anew), or -1.
int listenAt(const std::string& path) {
  unlink(path.c_str());
  const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listener, 1) != 0) {
    close(listener);
    return -1;
  }
  return listener;
}

// Everything the peer sends until it closes; closes it.
std::string readAll(int peer) {
  std::string bytes;
  char buffer[1 << 16];
  for (ssize_t n; peer >= 0 && (n = read(peer, buffer, sizeof buffer)) > 0;) bytes.append(buffer, static_cast<size_t>(n));
  if (peer >= 0) close(peer);
  return bytes;
}

TEST(TorchTracker, SendsTheAllocatorsEntriesWithTheirStacks) {
  const std::string path = socketPath("sawtooth-tracker-test");
  const int listener = listenAt(path);
  ASSERT_GE(listener, 0);

  const uint64_t idle_before = tracker::idleCalls();
  tracker::onTraceEntry(entry(TraceEntry::ALLOC, 0x10, 8));  // before start: ignored, counted as idle
  EXPECT_EQ(tracker::seen(), 0u);
  EXPECT_EQ(tracker::idleCalls(), idle_before + 1);
  std::string error;
  ASSERT_TRUE(tracker::start(path.c_str(), /*with_stacks*/ true, /*interval_ms*/ 5, error)) << error;
  const int peer = accept(listener, nullptr, nullptr);
  ASSERT_GE(peer, 0);

  const int64_t first_entry_ns = wire::monotonicNs();
  auto stack = torch::CapturedTraceback::gather(/*python*/ false, /*script*/ false, /*cpp*/ true);
  tracker::onTraceEntry(entry(TraceEntry::ALLOC, 0x1000, 512, stack));
  tracker::onTraceEntry(entry(TraceEntry::FREE_REQUESTED, 0x1000, 512));
  tracker::onTraceEntry(entry(TraceEntry::FREE_COMPLETED, 0x1000, 512));
  tracker::setPaused(true);
  tracker::onTraceEntry(entry(TraceEntry::ALLOC, 0x30, 8));  // paused: ignored, counted as idle
  tracker::setPaused(false);
  tracker::onTraceEntry(entry(TraceEntry::SEGMENT_ALLOC, 0x1000, 2 << 20));
  tracker::onTraceEntry(entry(TraceEntry::OOM, 1234, 4096));
  const int64_t last_entry_ns = wire::monotonicNs();
  tracker::stop("done");
  tracker::onTraceEntry(entry(TraceEntry::ALLOC, 0x20, 8));  // after stop: ignored
  EXPECT_EQ(tracker::seen(), 5u);
  EXPECT_EQ(tracker::idleCalls(), idle_before + 3);  // before start, paused, after stop: the five sent ones are not idle
  tracker::setPaused(false);  // a stopped tracker stays stopped
  tracker::onTraceEntry(entry(TraceEntry::ALLOC, 0x40, 8));
  EXPECT_EQ(tracker::seen(), 5u);

  const std::string bytes = readAll(peer);
  close(listener);
  unlink(path.c_str());

  FrameReader reader;
  std::vector<wire::Record> records;
  std::vector<FrameDef> frames;
  std::vector<StackDef> stacks;
  nlohmann::json hello, bye;
  int watermarks = 0;
  bool stack_before_use = true;
  Status st = reader.feed(bytes, [&](const wire::Header& h, std::string_view p) -> Status {
    switch (h.type) {
      case wire::FrameType::Hello: {
        auto json = wire::helloJson(p);  // the magic and this protocol's version first
        if (!json) return json.error();
        hello = nlohmann::json::parse(*json);
        return Ok{};
      }
      case wire::FrameType::Bye: bye = nlohmann::json::parse(p); return Ok{};
      case wire::FrameType::Watermark: ++watermarks; return Ok{};
      case wire::FrameType::Frames: return decodeFrames(p, frames);
      case wire::FrameType::Stacks: return decodeStacks(p, stacks);
      case wire::FrameType::Records: {
        const size_t first = records.size();
        Status s = decodeRecords(p, records);
        for (size_t i = first; i < records.size(); ++i)
          if (records[i].stack != wire::kNoStack && records[i].stack >= stacks.size()) stack_before_use = false;
        return s;
      }
      default: return Error{"unexpected frame"};
    }
  });
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(hello.value("role", ""), "tracker");
  EXPECT_TRUE(hello.value("modules", false));
  EXPECT_EQ(bye.value("reason", ""), "done");
  EXPECT_EQ(bye.value("events", 0), 5);
  EXPECT_EQ(bye.value("dropped", -1), 0);
  EXPECT_GE(watermarks, 2) << "one at the start, one with each delivery";
  ASSERT_EQ(records.size(), 5u);
  const std::vector<Action> actions = {Action::Alloc, Action::FreeRequested, Action::FreeCompleted, Action::SegmentAlloc,
                                       Action::Oom};
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].action, static_cast<uint8_t>(actions[i]));
    EXPECT_EQ(records[i].kind, static_cast<uint8_t>(wire::RecordKind::Allocator));
    EXPECT_EQ(records[i].stream, 0x77u);
    if (i > 0) {
      EXPECT_GE(records[i].t_ns, records[i - 1].t_ns);
    }
    // PyTorch's stamps, mapped to the monotonic clock (50 ms for the mapping's error on a loaded
    // machine: what this catches is a stamp read or mapped wrongly, which lands seconds away).
    EXPECT_GE(records[i].t_ns, first_entry_ns - 50'000'000);
    EXPECT_LE(records[i].t_ns, last_entry_ns + 50'000'000);
  }
  EXPECT_EQ(bye.value("clock", ""), "approximate");
  EXPECT_EQ(bye.value("clock_mismatches", -1), 0);
  EXPECT_EQ(records[0].addr, 0x1000u);
  EXPECT_EQ(records[0].size, 512);
  EXPECT_EQ(records[4].addr, 1234u) << "an OOM's addr is the device's free bytes";
  EXPECT_TRUE(stack_before_use);
  ASSERT_NE(records[0].stack, wire::kNoStack) << "the allocation's C++ stack was symbolized";
  EXPECT_FALSE(stacks.at(records[0].stack).frames.empty());
  EXPECT_EQ(records[1].stack, wire::kNoStack);
  EXPECT_FALSE(frames.empty());
}

// A stamp that is not PyTorch's approximate clock as the tracker reads it (a torch build that
// stamped differently) must not put events decades away: the entry is placed at its delivery, the
// tracker reads the monotonic clock from then on, and the goodbye says so.
TEST(TorchTracker, FallsBackToTheMonotonicClockForStampsItCannotMap) {
  const std::string path = socketPath("sawtooth-tracker-clock");
  const int listener = listenAt(path);
  ASSERT_GE(listener, 0);
  std::string error;
  ASSERT_TRUE(tracker::start(path.c_str(), /*with_stacks*/ false, /*interval_ms*/ 5, error)) << error;
  const int peer = accept(listener, nullptr, nullptr);
  ASSERT_GE(peer, 0);
  const int64_t before = wire::monotonicNs();
  tracker::onTraceEntry(TraceEntry(TraceEntry::ALLOC, 0, 0x10, 8, nullptr, {0, 0}, /*time*/ 1));
  usleep(50'000);  // delivered, and the clock given up
  tracker::onTraceEntry(entry(TraceEntry::FREE_REQUESTED, 0x10, 8));
  tracker::stop("done");
  const int64_t after = wire::monotonicNs();
  const std::string bytes = readAll(peer);
  close(listener);
  unlink(path.c_str());

  FrameReader reader;
  std::vector<wire::Record> records;
  nlohmann::json bye;
  ASSERT_TRUE(reader
                  .feed(bytes,
                        [&](const wire::Header& h, std::string_view p) -> Status {
                          if (h.type == wire::FrameType::Bye) bye = nlohmann::json::parse(p);
                          if (h.type == wire::FrameType::Records) return decodeRecords(p, records);
                          return Ok{};
                        })
                  .ok());
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    EXPECT_GE(r.t_ns, before);
    EXPECT_LE(r.t_ns, after);
  }
  EXPECT_LE(records[0].t_ns, records[1].t_ns);
  EXPECT_EQ(bye.value("clock", ""), "monotonic");
  EXPECT_EQ(bye.value("clock_mismatches", -1), 1);
}

#ifdef SAWTOOTH_PROBE_LIBRARY
// What the tracker sent from one run of tests/tools/tracker_python_probe.py, decoded.
struct ProbeRun {
  int exit_status = -1;
  std::vector<wire::Record> records;
  std::vector<FrameDef> frames;
  std::vector<StackDef> stacks;
  nlohmann::json hello, bye;
};

ProbeRun runProbe(bool frame_cache, const char* script = SAWTOOTH_PROBE_SCRIPT, bool torch_symbolizer = false) {
  const std::string path = socketPath("sawtooth-tracker-probe");
  ProbeRun run;
  const int listener = listenAt(path);
  if (listener < 0) return run;
  const pid_t child = fork();
  if (child == 0) {
    if (!frame_cache) setenv("SAWTOOTH_TRACKER_FRAME_CACHE", "0", 1);
    if (torch_symbolizer) setenv("SAWTOOTH_PROBE_TORCH_SYMBOLIZER", "1", 1);
    execl(SAWTOOTH_PROBE_PYTHON, SAWTOOTH_PROBE_PYTHON, script, SAWTOOTH_PROBE_LIBRARY, path.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // The probe's connection, or nothing once it has exited without one (an import error): never
  // an accept() that waits for ever.
  int peer = -1;
  for (int status = 0; peer < 0;) {
    pollfd ready{listener, POLLIN, 0};
    if (poll(&ready, 1, 1000) > 0) {
      peer = accept(listener, nullptr, nullptr);
    } else if (waitpid(child, &status, WNOHANG) == child) {
      ADD_FAILURE() << "the probe exited (status " << status << ") without connecting";
      close(listener);
      unlink(path.c_str());
      return run;
    }
  }
  const std::string bytes = readAll(peer);
  close(listener);
  unlink(path.c_str());
  int status = 0;
  waitpid(child, &status, 0);
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  FrameReader reader;
  const Status st = reader.feed(bytes, [&](const wire::Header& h, std::string_view p) -> Status {
    switch (h.type) {
      case wire::FrameType::Hello: {
        auto json = wire::helloJson(p);
        if (json) run.hello = nlohmann::json::parse(*json);
        return Ok{};
      }
      case wire::FrameType::Bye: run.bye = nlohmann::json::parse(p); return Ok{};
      case wire::FrameType::Frames: return decodeFrames(p, run.frames);
      case wire::FrameType::Stacks: return decodeStacks(p, run.stacks);
      case wire::FrameType::Records: return decodeRecords(p, run.records);
      default: return Ok{};
    }
  });
  EXPECT_TRUE(st.ok()) << st.error().message;
  return run;
}

int lineOf(const std::string& marker) {
  std::ifstream script(SAWTOOTH_PROBE_SCRIPT);
  std::string text;
  for (int n = 1; std::getline(script, text); ++n)
    if (text.find(marker) != std::string::npos) return n;
  return -1;
}

// Python frames through PyTorch's own stack capture, named by the tracker itself or (once the shim
// allows it) by torch's symbolizer, as in a recorded program: every allocation names its function
// and line, and frames seen in an earlier delivery come from the tracker's cache (without it, they
// are named again each delivery), to the same stacks. Named by the tracker, nothing is imported
// behind the program (the probe fails if torch._dynamo was).
void namesPythonFramesAndReusesThem(bool torch_symbolizer) {
  std::map<bool, ProbeRun> runs;
  for (bool cache : {true, false}) {
    SCOPED_TRACE(cache ? "frame cache on" : "frame cache off");
    ProbeRun& run = runs[cache] = runProbe(cache, SAWTOOTH_PROBE_SCRIPT, torch_symbolizer);
    ASSERT_EQ(run.exit_status, 0) << "the probe script failed (its output is above)";
    ASSERT_EQ(run.records.size(), 151u);
    EXPECT_EQ(run.bye.value("events", 0), 151);
    EXPECT_EQ(run.bye.value("frame_cache", !cache), cache);
    auto frame = [&](const wire::Record& r, size_t depth) -> const FrameDef& {
      return run.frames.at(run.stacks.at(r.stack).frames.at(depth));
    };
    uint32_t loop_stack = wire::kNoStack;
    for (const wire::Record& r : run.records) {
      ASSERT_NE(r.stack, wire::kNoStack);
      ASSERT_GE(run.stacks.at(r.stack).frames.size(), 3u);
      if (r.addr == 0x9000) {
        EXPECT_EQ(frame(r, 0).name, "elsewhere");
        EXPECT_EQ(frame(r, 0).line, lineOf("# line: elsewhere"));
      } else {
        EXPECT_EQ(frame(r, 0).name, "allocate");
        EXPECT_EQ(frame(r, 0).line, lineOf("# line: allocate"));
        EXPECT_EQ(frame(r, 1).name, "train");
        EXPECT_TRUE(frame(r, 0).file.ends_with("tracker_python_probe.py")) << frame(r, 0).file;
        if (loop_stack == wire::kNoStack) loop_stack = r.stack;
        EXPECT_EQ(r.stack, loop_stack) << "one call site, one stack, in every delivery";
      }
    }
  }
  const ProbeRun& cached = runs[true];
  const ProbeRun& uncached = runs[false];
  EXPECT_GE(cached.bye.value("stacks_from_cache", 0), 100) << "steps 2 and 3 are later deliveries";
  EXPECT_LE(cached.bye.value("frames_symbolized", 1000), 10) << "each frame once";
  EXPECT_EQ(uncached.bye.value("stacks_from_cache", -1), 0);
  EXPECT_GE(uncached.bye.value("frames_symbolized", 0), cached.bye.value("frames_symbolized", 0) + 3)
      << "without the cache, the loop's frames are named again in each delivery";
}

TEST(TorchTracker, NamesPythonFramesAndReusesThemAcrossDeliveries) { namesPythonFramesAndReusesThem(false); }

TEST(TorchTracker, NamesPythonFramesThroughTorchsSymbolizerOnceAllowed) { namesPythonFramesAndReusesThem(true); }

// Each allocation's module and pass (module_context.h): in forward the call the shim marked open
// on the thread, in backward the call whose forward made the node being run (its sequence number
// and forward thread), in a recompute the call opened inside backward; the marks themselves go
// out as ModuleEnter/ModuleExit records, and the hello says the modules are the tracker's word.
TEST(TorchTracker, SaysEachAllocationsModuleAndPass) {
  ProbeRun run = runProbe(true, SAWTOOTH_PROBE_MODULES_SCRIPT);
  ASSERT_EQ(run.exit_status, 0) << "the probe script failed (its output is above)";
  EXPECT_TRUE(run.hello.value("modules", false));
  std::map<uint64_t, std::pair<uint32_t, uint8_t>> allocation;  // addr -> (module, pass)
  std::vector<std::pair<uint8_t, uint32_t>> marks;                // (kind, module)
  for (const wire::Record& r : run.records) {
    if (r.kind == static_cast<uint8_t>(wire::RecordKind::Allocator)) allocation[r.addr] = {r.module, r.pass};
    else marks.emplace_back(r.kind, r.module);
  }
  constexpr uint8_t kNone = 0, kForward = 1, kBackward = 2, kRecompute = 3;
  using P = std::pair<uint32_t, uint8_t>;
  EXPECT_EQ(allocation[0x1000], (P{2, kForward}));
  EXPECT_EQ(allocation[0x2000], (P{1, kForward}));
  EXPECT_EQ(allocation[0x3000], (P{wire::kNoModule, kNone}));
  EXPECT_EQ(allocation[0x3100], (P{wire::kNoModule, kBackward}));  // the loss's node: outside modules
  EXPECT_EQ(allocation[0x2100], (P{1, kBackward}));
  EXPECT_EQ(allocation[0x1100], (P{2, kBackward}));
  EXPECT_EQ(allocation[0x2200], (P{3, kRecompute}));
  EXPECT_EQ(allocation[0x4000], (P{wire::kNoModule, kNone}));  // tagging off (setTagModules), the marks on
  const auto enter = static_cast<uint8_t>(wire::RecordKind::ModuleEnter);
  const auto exit = static_cast<uint8_t>(wire::RecordKind::ModuleExit);
  EXPECT_EQ(marks, (std::vector<std::pair<uint8_t, uint32_t>>{{enter, 1}, {enter, 2}, {exit, 2}, {exit, 1}, {enter, 3},
                                                               {exit, 3}, {enter, 1}, {exit, 1}}));
}
#endif

}  // namespace
}  // namespace sawtooth::record
