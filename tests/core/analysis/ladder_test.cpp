// The ladder's predictions on hand-made steps whose peaks are worked out by hand (in units of
// 512 bytes, a CUDA block), and on the H200 recordings committed under resources/samples, whose
// measured rungs the predictions must meet.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "core/analysis/interconnect.h"
#include "core/analysis/ladder.h"
#include "core/analysis/ladder_table.h"
#include "core/analysis/ladder_blocks.h"
#include "core/analysis/ladder_measured.h"
#include "core/analysis/ladder_rungs.h"
#include "core/analysis/python_line.h"
#include "core/io/ladder_json.h"
#include "core/io/trace_loader.h"

namespace sawtooth {
namespace {

constexpr int64_t u = 512;  // one CUDA block: sizes in these units round to themselves

// Builds a one-run CUDA trace phase by phase.
class StepBuilder {
 public:
  StepBuilder() {
    t_.format = "sawtooth";
    Run r;
    r.name = "base";
    r.workload = "test";
    t_.runs.push_back(r);
    t_.deviceInfo(0).total_bytes = 1000 * u;
  }
  uint64_t before(int64_t units, Category c) {  // made before the run
    return push(Action::Alloc, next_++, units, c, kNoRun);
  }
  void phase(const std::string& name) {
    end();
    Phase p;
    p.name = name;
    p.run = 0;
    p.device = kAllDevices;
    p.begin_ns = now_;
    t_.phases.push_back(p);
    open_ = static_cast<uint32_t>(t_.phases.size() - 1);
  }
  void end() {
    if (open_ != kNoPhase) t_.phases[open_].end_ns = now_;
    open_ = kNoPhase;
  }
  uint64_t a(int64_t units, Category c = Category::Unknown) { return push(Action::Alloc, next_++, units, c, 0); }
  // An allocation whose Python stack has the torch.nn.functional function `functional` innermost.
  uint64_t a(int64_t units, Category c, const std::string& functional,
             const std::string& file = "/venv/lib/python3.12/site-packages/torch/nn/functional.py") {
    const uint32_t frames[] = {t_.stacks.internFrame(functional, file, 1),
                               t_.stacks.internFrame("forward", "/work/model.py", 10)};
    stack_ = t_.stacks.internStack(frames);
    const uint64_t addr = push(Action::Alloc, next_++, units, c, 0);
    stack_ = kNoStack;
    return addr;
  }
  // An allocation whose Python stack is `frames` (function, file), innermost first.
  uint64_t aIn(int64_t units, Category c, const std::vector<std::pair<std::string, std::string>>& frames) {
    std::vector<uint32_t> ids;
    for (const auto& [function, file] : frames) ids.push_back(t_.stacks.internFrame(function, file, 1));
    stack_ = t_.stacks.internStack(ids);
    const uint64_t addr = push(Action::Alloc, next_++, units, c, 0);
    stack_ = kNoStack;
    return addr;
  }
  void f(uint64_t addr) {
    int64_t size = 0;
    for (size_t i = 0; i < t_.events.size(); ++i)
      if (t_.events.addr()[i] == addr && t_.events.action()[i] == Action::Alloc) size = t_.events.sizes()[i];
    push(Action::FreeCompleted, addr, size / u, Category::Unknown, 0);
  }
  void setConfig(const std::string& k, const std::string& v) { t_.runs[0].config.emplace_back(k, v); }
  Trace trace() {
    end();
    return t_;
  }

 private:
  uint64_t push(Action action, uint64_t addr, int64_t units, Category c, uint16_t run) {
    Event e;
    e.t_ns = now_ += 1000;
    e.device = 0;
    e.source = Source::Allocator;
    e.action = action;
    e.addr = addr;
    e.size = units * u;
    e.category = c;
    e.phase = run == kNoRun ? kNoPhase : open_;
    e.run = run;
    e.stack = stack_;
    t_.events.push(e);
    return addr;
  }
  Trace t_;
  int64_t now_ = 0;
  uint64_t next_ = 0x1000;
  uint32_t open_ = kNoPhase;
  uint32_t stack_ = kNoStack;
};

// Three identical blocks: each makes A1 (saved by its second op) and A2 (its output, saved by the
// next block's first op). The loss L (1 unit) frees the last output in forward; L lives past backward.
// With a workspace, the first block also makes a 7-unit block it never frees (a library's workspace
// made on first use) between its A1 and A2.
// With saved_before_cache, each block first makes a 30-unit tensor it saves (freed where A1 is).
Trace chainOfBlocks(bool with_optimizer = false, bool a1_in_a_cache = false, bool first_use_workspace = false,
                    bool saved_before_cache = false) {
  StepBuilder b;
  b.before(50, Category::Parameter);
  b.before(100, Category::Input);
  b.phase("forward");
  uint64_t A1[3], A2[3], S[3] = {};
  for (int i = 0; i < 3; ++i) {
    if (saved_before_cache) S[i] = b.a(30, Category::Activation);
    A1[i] = a1_in_a_cache ? b.a(100, Category::Activation, "update", "/venv/transformers/cache_utils.py")
                          : b.a(100, Category::Activation);
    if (i == 0 && first_use_workspace) b.a(7, Category::Unknown);
    A2[i] = b.a(100, Category::Activation);
  }
  const uint64_t L = b.a(1);
  b.f(A2[2]);
  b.phase("backward");
  uint64_t g = b.a(100, Category::Temporary);
  uint64_t g2 = b.a(100, Category::Temporary);  // block 2
  b.f(A1[2]);
  if (saved_before_cache) b.f(S[2]);
  b.f(g);
  b.a(20, Category::Gradient);
  uint64_t g1 = b.a(100, Category::Temporary);
  b.f(A2[1]);
  b.f(g2);
  g2 = b.a(100, Category::Temporary);  // block 1
  b.f(A1[1]);
  if (saved_before_cache) b.f(S[1]);
  b.f(g1);
  g1 = b.a(100, Category::Temporary);
  b.f(A2[0]);
  b.f(g2);
  g2 = b.a(100, Category::Temporary);  // block 0
  b.f(A1[0]);
  if (saved_before_cache) b.f(S[0]);
  b.f(g1);
  g1 = b.a(100, Category::Temporary);
  b.f(g2);
  b.f(g1);
  b.phase("after");
  b.f(L);
  if (with_optimizer) {
    b.phase("optimizer");
    b.a(40, Category::OptimizerState);
    b.a(40, Category::OptimizerState);
    const uint64_t tmp = b.a(20, Category::Temporary);
    b.f(tmp);
  }
  return b.trace();
}

LadderInput inputOf(const Trace& t) {
  auto in = ladderInput(t);
  EXPECT_TRUE(in.ok()) << (in.ok() ? "" : in.error().message);
  return in.ok() ? std::move(*in) : LadderInput{};
}

int64_t peakUnits(const RungProgram& r, const LadderInput& in) {
  EXPECT_TRUE(r.applicable) << r.why_not;
  return programPeak(r.program, in).block_bytes / u;
}

TEST(LadderInput, TheRunIsItsBlocksAndOps) {
  const LadderInput in = inputOf(chainOfBlocks());
  EXPECT_EQ(in.run, "base");
  EXPECT_EQ(in.device, 0);
  EXPECT_TRUE(in.cuda);
  ASSERT_EQ(in.micro_steps.size(), 1u);
  EXPECT_EQ(in.peak_allocated_blocks, 851 * u);  // 150 + 6 × 100 + 1, then backward's first two grads
  EXPECT_EQ(in.repeated.count, 3u);
  ASSERT_EQ(in.repeated.forward.size(), 1u);
  ASSERT_EQ(in.repeated.forward[0].size(), 3u);
  EXPECT_EQ(in.repeated.forward[0][1].begin, 2u);
}

// A recording made with sawtooth-record --rung already runs that rung: its ladder does not predict it
// again (a --rung bf16 recording's ladder offered bf16 from itself, 7 % faster than itself).
TEST(LadderInput, ARecordingOfARungStartsFromIt) {
  Trace bf16 = chainOfBlocks(true);
  bf16.meta["rung"] = "bf16";
  const LadderReport low = predictLadder(inputOf(bf16));
  ASSERT_NE(low.row("bf16"), nullptr);
  EXPECT_FALSE(low.row("bf16")->applicable);
  EXPECT_NE(low.row("bf16")->note.find("already autocasts"), std::string::npos) << low.row("bf16")->note;
  EXPECT_TRUE(low.row("checkpoint:every=1")->applicable);
  Trace checkpointed = chainOfBlocks(true);
  checkpointed.meta["rung"] = "checkpoint:every=2";
  const LadderReport cp = predictLadder(inputOf(checkpointed));
  EXPECT_FALSE(cp.row("checkpoint:every=1")->applicable);
  EXPECT_TRUE(cp.row("bf16")->applicable);
}

// A recorded program's run has no batch key (a workload's has): its command line may name it. The
// ladder then says the largest batch that fits in samples ("fits at batch 104"), not only as a
// multiple of the recorded one.
TEST(LadderInput, AProgramsBatchComesFromItsCommandLine) {
  const auto batchOf = [](const char* argv) -> std::optional<std::pair<int64_t, std::string>> {
    Trace t = chainOfBlocks(true);
    t.runs[0].config.emplace_back("process_argv", argv);
    const LadderInput in = inputOf(t);
    if (!in.batch) return std::nullopt;
    return std::pair{*in.batch, in.batch_key};
  };
  const auto gpt2 = batchOf(R"(["python3","train.py","--model","gpt2","--batch","8","--seq","512"])");
  ASSERT_TRUE(gpt2);
  EXPECT_EQ(*gpt2, (std::pair<int64_t, std::string>{8, "--batch"}));
  EXPECT_EQ(batchOf(R"(["run.py","--per_device_train_batch_size=16"])"),
            (std::pair<int64_t, std::string>{16, "--per_device_train_batch_size"}));
  EXPECT_FALSE(batchOf(R"(["t.py","--batch-size","many"])"));  // not a count
  EXPECT_FALSE(batchOf(R"(["t.py","--batches","4"])"));         // another option
  EXPECT_FALSE(batchOf(R"(["t.py","--batch"])"));               // no value
  EXPECT_FALSE(batchOf("not json"));
  // The run's own key comes first.
  Trace t = chainOfBlocks(true);
  t.runs[0].config.emplace_back("batch", "32");
  t.runs[0].config.emplace_back("process_argv", R"(["t.py","--batch","8"])");
  EXPECT_EQ(inputOf(t).batch, 32);

  Trace program = chainOfBlocks(true);
  program.runs[0].config.emplace_back("process_argv", R"(["python3","train.py","--batch","8"])");
  const LadderReport rep = predictLadder(inputOf(program));
  const std::vector<std::string> summary = ladderSummary(rep);
  EXPECT_NE(std::find(summary.begin(), summary.end(), "The recorded batch: 8 (the program's --batch option)."), summary.end())
      << fmt::format("{}", fmt::join(summary, "\n"));
  ASSERT_TRUE(rep.row("baseline")->max_batch);
}

// The blocks alive when the run begins come first, in the order they were made: not in the order
// of the table that holds them by address (keyed per process, so it differs from run to run).
TEST(LadderInput, BlocksAliveAtTheStartComeInTheOrderTheyWereMade) {
  StepBuilder b;
  for (int64_t units = 1; units <= 64; ++units) b.before(units, Category::Parameter);
  b.phase("forward");
  b.a(100, Category::Activation);
  const LadderInput in = inputOf(b.trace());
  ASSERT_GE(in.blocks.size(), 65u);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(in.blocks[static_cast<size_t>(i)].bytes, (i + 1) * u) << i;
    EXPECT_EQ(in.blocks[static_cast<size_t>(i)].alloc_op, -1) << i;
  }
}

// ZeroRedundancyOptimizer's step runs its local optimizer's step inside its own, and the shim marks
// both: one optimizer step, timed from the outer one's ends (measured on two H200s: 7 ms a "step"
// where the program ran 43 ms ones).
TEST(LadderInput, AnOptimizerStepInsideAnotherIsOneStep) {
  StepBuilder b;
  b.before(10, Category::Parameter);
  for (int step = 0; step < 6; ++step) {
    b.phase("forward");
    const uint64_t x = b.a(5, Category::Activation);
    b.phase("backward");
    b.f(x);
    b.phase("optimizer");  // ZeroRedundancyOptimizer.step ...
    b.phase("optimizer");  // ... and AdamW.step within it: the builder ends the outer one here
    b.a(1, Category::Temporary);
  }
  Trace t = b.trace();
  // Nest them: each inner step ends before its outer one.
  for (size_t i = 0; i + 1 < t.phases.size(); ++i)
    if (t.phases[i].name == "optimizer" && t.phases[i + 1].name == "optimizer") {
      t.phases[i].end_ns = t.phases[i + 1].end_ns + 500;
      ++i;
    }
  const LadderInput in = inputOf(t);
  EXPECT_EQ(in.optimizer_steps, 6u);
  ASSERT_TRUE(in.timing.has_value());
  EXPECT_EQ(in.timing->samples, 4u);  // 5 intervals between 6 steps, the first left out
  EXPECT_NEAR(in.timing->median_ms, 0.003, 1e-9);  // 3 events of 1 µs a step
}

TEST(LadderInput, UnknownRunIsAnError) {
  auto in = ladderInput(chainOfBlocks(), LadderSelection{"nope", std::nullopt, {}});
  ASSERT_FALSE(in.ok());
  EXPECT_NE(in.error().message.find("no run named 'nope'"), std::string::npos);
  EXPECT_NE(in.error().message.find("base"), std::string::npos);
}

TEST(LadderRungs, IdentityReproducesTheMeasuredPeak) {
  const LadderInput in = inputOf(chainOfBlocks());
  EXPECT_EQ(peakUnits(identityRung(in), in), 851);
}

TEST(LadderRungs, CheckpointingEveryBlockNonReentrantRecomputesOnlyWhatWasSaved) {
  const LadderInput in = inputOf(chainOfBlocks());
  // Backward starts at 351 (parameters, input, two outputs, the loss); block 2's A1 comes back
  // (451), then its backward's two gradients: 651.
  EXPECT_EQ(peakUnits(checkpointRung(in, 1, CheckpointForm::NonReentrant), in), 651);
}

TEST(LadderRungs, CheckpointingFreesNothingACacheHolds) {
  const LadderInput in = inputOf(chainOfBlocks(false, true));
  ASSERT_TRUE(in.blocks[2].cached);
  const RungProgram r = checkpointRung(in, 1, CheckpointForm::NonReentrant);
  // Each block's A1 is in a cache that outlives the block: all three stay through forward (651 at
  // backward's start, not 351). The cache's update made a block on every call, so it concatenates:
  // each recomputation makes old and new entries together (200) beside the old one (100), which it
  // then replaces, and the cache holds the new ones until backward ends. Block 1's recomputation, right
  // after its output A2[1] is freed: 150 persistent, block 2's entry (200), the old A1[1] and A1[0]
  // (200), A2[0] (100), the gradient (20), g1 and g2 (200), L (1) and the new entry (200): 1071
  // (replacing the entry with one of its own size, the rule before, gave 871).
  EXPECT_EQ(peakUnits(r, in), 1071);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("store in a cache"), std::string::npos) << why;
  EXPECT_NE(why.find("use_cache=False"), std::string::npos) << why;
  EXPECT_NE(why.find("concatenates"), std::string::npos) << why;
}

// The Llama-style model checkpointed every block peaked 5.15 % above the prediction (H100 and H200):
// each recomputed layer's KV-cache entry (the cache holds it to the end of backward) keeps the
// recomputed graph that made it, and with it the input norm's two saved tensors, which the key and
// value projections read. They are kept to the end of backward; which saved tensors a cache write
// depends on is data flow, so the range's low end frees them where the recorded backward did.
TEST(LadderRungs, CheckpointingKeepsWhatABlockSavedBeforeItsCacheWriteToTheEnd) {
  const LadderInput in = inputOf(chainOfBlocks(false, true, false, true));
  const RungProgram r = checkpointRung(in, 1, CheckpointForm::NonReentrant);
  ASSERT_TRUE(r.applicable) << r.why_not;
  // At the peak, late in backward: the three doubled cache entries (2 × 100 units each) and all three
  // blocks' 30-unit saved tensors (freed in each block's backward, only the last block's would be).
  const ProgramPeak held = programPeak(r.program, in);
  EXPECT_EQ(held.by_kind[static_cast<size_t>(BlockRole::Recomputed)], (3 * 200 + 3 * 30) * u);
  EXPECT_GT(r.may_be_lower_by, 0);
  EXPECT_NE(r.range_why.find("cache write"), std::string::npos) << r.range_why;
  bool said = false;
  for (const std::string& line : r.reasoning) said |= line.find("before its cache write") != std::string::npos;
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(r.reasoning, "\n"));
  // Without a cache, nothing of the kind.
  const RungProgram plain = checkpointRung(inputOf(chainOfBlocks(false, false, false, true)), 1, CheckpointForm::NonReentrant);
  EXPECT_EQ(plain.range_why.find("cache write"), std::string::npos);
}

TEST(LadderRungs, NonReentrantCheckpointingSaysItMayBeHighByOneRecomputedTensor) {
  const LadderInput in = inputOf(chainOfBlocks());
  const auto text = [](const RungProgram& r) { return fmt::format("{}", fmt::join(r.reasoning, "\n")); };
  const std::string nr = text(checkpointRung(in, 1, CheckpointForm::NonReentrant));
  EXPECT_NE(nr.find("may be high by up to one such tensor (51.2 kB here)"), std::string::npos) << nr;
  EXPECT_EQ(text(checkpointRung(in, 1, CheckpointForm::Reentrant)).find("may be high by up to one"), std::string::npos);
}

// Non-reentrant checkpointing: the formula that unpacks a recomputed tensor drops it when it returns,
// after the weight's gradient (of the weight's size), before the engine reduces the bias's gradient
// (of the bias's size) with its 200-unit workspace; the recorded run's saved tensor lived to the
// step's end. Kept to the end (the rule before), each block's recomputed A1 met the workspace: 633.
TEST(LadderRungs, NonReentrantCheckpointingFreesARecomputedTensorWhenItsFormulaReturns) {
  StepBuilder b;
  b.before(8, Category::Parameter);  // the weight
  b.before(2, Category::Parameter);  // the bias
  b.before(100, Category::Input);
  b.phase("forward");
  uint64_t A1[2], A2[2];
  for (int i = 0; i < 2; ++i) {
    A1[i] = b.a(100, Category::Activation);
    A2[i] = b.a(100, Category::Activation);
  }
  b.a(1);  // the loss
  b.f(A2[1]);
  b.phase("backward");
  uint64_t incoming = 0;
  for (int i = 1; i >= 0; --i) {
    const uint64_t g = b.a(100, Category::Temporary);
    b.a(8, Category::Temporary);  // the weight's gradient
    b.a(2, Category::Temporary);  // the bias's, reduced by the engine
    const uint64_t ws = b.a(200, Category::Temporary);
    b.f(ws);
    b.f(A1[i]);
    const uint64_t next = b.a(100, Category::Temporary);
    b.f(g);
    if (incoming) b.f(incoming);
    if (i == 1) b.f(A2[0]);
    incoming = next;
  }
  b.f(incoming);
  const LadderInput in = inputOf(b.trace());
  ASSERT_EQ(in.repeated.count, 2u);
  // Block 0's step: 110 persistent, the loss, 100 of incoming gradient, block 1's gradients (8 + 2),
  // its own g (100) and gradients (8 + 2), then the workspace (200) once A1[0] has gone.
  EXPECT_EQ(peakUnits(checkpointRung(in, 1, CheckpointForm::NonReentrant), in), 531);
  // Reentrant checkpointing backpropagates through the recomputation's own graph: kept to the end.
  EXPECT_EQ(peakUnits(checkpointRung(in, 1, CheckpointForm::Reentrant), in), 731);
}

TEST(LadderRungs, SmallerBatchesSayALibraryWorkspaceMayShrink) {
  StepBuilder b;
  b.before(10, Category::Parameter);
  b.phase("forward");
  const uint64_t x = b.a(100, Category::Activation);
  b.phase("backward");
  const uint64_t w = b.a(30, Category::Temporary);  // a size forward never made: not scaled
  b.f(w);
  b.a(10, Category::Gradient);
  b.f(x);
  const LadderInput in = inputOf(b.trace());
  for (const bool accumulate : {true, false}) {
    const RungProgram r = batchRung(in, 2, accumulate);
    const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
    EXPECT_NE(why.find("kept whole (15.4 kB the largest)"), std::string::npos) << why;
  }
}

// A block made once and never freed (cuBLAS's workspace on the first call) is not part of a layer's
// pattern: without the rule the pattern found was (A2 A1) from the first block's A2 on, so that every
// block was taken to start inside a layer, and non-reentrant checkpointing freed the wrong tensors.
TEST(LadderBlocks, AWorkspaceMadeOnFirstUseDoesNotShiftTheBlocks) {
  const LadderInput in = inputOf(chainOfBlocks(false, false, true));
  EXPECT_EQ(in.repeated.count, 3u);
  ASSERT_EQ(in.repeated.forward.size(), 1u);
  ASSERT_EQ(in.repeated.forward[0].size(), 3u);
  EXPECT_EQ(in.repeated.forward[0][0].begin, 0u);
  EXPECT_EQ(in.repeated.forward[0][0].end, 3u);  // A1, the workspace, A2
  EXPECT_EQ(in.repeated.forward[0][1].begin, 3u);
  EXPECT_EQ(in.repeated.forward[0][2].end, 7u);
  // The chain's own predictions (651, 751) with the workspace alive throughout.
  EXPECT_EQ(peakUnits(checkpointRung(in, 1, CheckpointForm::NonReentrant), in), 658);
  EXPECT_EQ(peakUnits(checkpointRung(in, 1, CheckpointForm::Reentrant), in), 758);
}

// Blocks are found from the allocation pattern first; the words do not claim the recording has no
// modules when it has them (a CPU anatomy recording said "no module data" beside its 8 modules).
TEST(LadderBlocks, TheBlocksSourceSaysWhetherTheRecordingHasModules) {
  EXPECT_NE(inputOf(chainOfBlocks()).repeated.source.find("no module data"), std::string::npos);
  Trace with = chainOfBlocks();
  with.modules.modules.push_back(Module{"Chain", "Chain", kNoModule, 0});
  const LadderInput in = inputOf(with);
  EXPECT_EQ(in.repeated.count, inputOf(chainOfBlocks()).repeated.count);
  EXPECT_EQ(in.repeated.source.find("no module data"), std::string::npos) << in.repeated.source;
  EXPECT_NE(in.repeated.source.find("tried before the module tree"), std::string::npos) << in.repeated.source;
}

// Layers that allocate differently have no repeating pattern: the module tree names the blocks
// (the longest run of children of one class), each from its forward call to the next block's.
Trace threeUnlikeBlocks(bool with_modules, bool call_twice = false) {
  StepBuilder b;
  b.before(50, Category::Parameter);                // t 1000
  b.phase("forward");
  const uint64_t x0 = b.a(100, Category::Activation);  // op 0, t 2000: block 0
  const uint64_t y0 = b.a(30, Category::Activation);   // op 1, t 3000
  const uint64_t x1 = b.a(60, Category::Activation);   // op 2, t 4000: block 1
  const uint64_t y1 = b.a(10, Category::Activation);   // op 3, t 5000
  const uint64_t z1 = b.a(11, Category::Activation);   // op 4, t 6000
  const uint64_t x2 = b.a(80, Category::Activation);   // op 5, t 7000: block 2
  const uint64_t loss = b.a(1);                        // op 6, t 8000: the head, outside the blocks
  b.phase("backward");
  for (uint64_t a : {x2, z1, y1, x1, y0, x0, loss}) b.f(a);
  Trace t = b.trace();
  if (with_modules) {
    t.modules.modules = {Module{"Net", "Net", kNoModule, 0}, Module{"layers", "ModuleList", 0, 0},
                         Module{"layers.0", "Block", 1, 40}, Module{"layers.1", "Block", 1, 40},
                         Module{"layers.2", "Block", 1, 40}, Module{"head", "Linear", 0, 8}};
    t.modules.calls = {ModuleCall{0, Pass::Forward, 0, 1500, 8500}, ModuleCall{2, Pass::Forward, 0, 1500, 3500},
                       ModuleCall{3, Pass::Forward, 0, 3500, 6500}, ModuleCall{4, Pass::Forward, 0, 6500, 7500},
                       ModuleCall{5, Pass::Forward, 0, 7500, 8500}};
    if (call_twice) t.modules.calls.push_back(ModuleCall{4, Pass::Forward, 0, 7600, 7700});
    std::sort(t.modules.calls.begin(), t.modules.calls.end(),
              [](const ModuleCall& a, const ModuleCall& c) { return a.begin_ns < c.begin_ns; });
  }
  return t;
}

TEST(LadderBlocks, TheModuleTreeNamesBlocksThePatternCannotFind) {
  EXPECT_FALSE(inputOf(threeUnlikeBlocks(false)).repeated.found());
  // Recorded with module tracking off (the default): the reason says how to get the tree.
  Trace untracked = threeUnlikeBlocks(false);
  untracked.meta["modules"] = "off";
  const std::string why = inputOf(untracked).repeated.source;
  EXPECT_NE(why.find("--modules on"), std::string::npos) << why;
  const LadderInput in = inputOf(threeUnlikeBlocks(true));
  ASSERT_TRUE(in.repeated.found()) << in.repeated.source;
  EXPECT_EQ(in.repeated.count, 3u);
  EXPECT_EQ(in.repeated.name, "layers (3 × Block)");
  EXPECT_NE(in.repeated.source.find("from the module tree"), std::string::npos) << in.repeated.source;
  ASSERT_EQ(in.repeated.forward.size(), 1u);
  ASSERT_EQ(in.repeated.forward[0].size(), 3u);
  const std::vector<std::pair<uint32_t, uint32_t>> expected = {{0, 2}, {2, 5}, {5, 6}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(in.repeated.forward[0][i].begin, expected[i].first) << i;
    EXPECT_EQ(in.repeated.forward[0][i].end, expected[i].second) << i;
  }
  // Checkpointing works on them: every block's activations but its output are dropped.
  const LadderReport report = predictLadder(in);
  const LadderRow* every = report.row("checkpoint:every=1");
  ASSERT_NE(every, nullptr);
  EXPECT_TRUE(every->applicable) << every->note;
  EXPECT_LT(every->peak_allocated_blocks, report.rows.front().peak_allocated_blocks);
  // A block called twice in the forward (shared weights, a loop): no blocks, and why.
  const LadderInput twice = inputOf(threeUnlikeBlocks(true, true));
  EXPECT_FALSE(twice.repeated.found());
  EXPECT_NE(twice.repeated.source.find("not called once each, in order"), std::string::npos) << twice.repeated.source;
}

// Nor does it scale with the batch or change its dtype: it is the library's, sized by its own rules.
TEST(LadderRungs, AWorkspaceMadeOnFirstUseDoesNotScaleWithTheBatch) {
  const LadderInput in = inputOf(chainOfBlocks(false, false, true));
  const std::vector<bool> scaled = batchScaledBlocks(in);
  size_t workspaces = 0;
  for (size_t i = 0; i < in.blocks.size(); ++i)
    if (in.blocks[i].bytes == 7 * u) {
      ++workspaces;
      EXPECT_FALSE(scaled[i]);
    } else if (in.blocks[i].bytes == 100 * u && in.blocks[i].alloc_op >= 0) {
      EXPECT_TRUE(scaled[i]) << i;
    }
  EXPECT_EQ(workspaces, 1u);
  // 1/2 of the batch: the chain's 851 halved where it scales (150 + 350 + 1) and the whole workspace.
  EXPECT_EQ(peakUnits(batchRung(in, 2, false), in), 508);
}

TEST(LadderInput, CacheFilesByTheirName) {
  EXPECT_TRUE(isCacheFile("/venv/lib/python3.12/site-packages/transformers/cache_utils.py"));
  EXPECT_TRUE(isCacheFile("/opt/torch/.venv/lib/python3.12/site-packages/transformers/cache_utils.py"));
  EXPECT_TRUE(isCacheFile("C:\\venv\\kv_cache.py"));
  EXPECT_FALSE(isCacheFile("/work/cache/model.py"));
  EXPECT_FALSE(isCacheFile("/venv/torch/nn/functional.py"));
  EXPECT_FALSE(isCacheFile("/venv/lib/python3.12/site-packages/torch/_inductor/codecache.py"));
  EXPECT_FALSE(isCacheFile("C:\\venv\\Lib\\site-packages\\torch\\_dynamo\\cache_size.py"));
  EXPECT_FALSE(isCacheFile("/src/pytorch/torch/_inductor/codecache.py"));
}

TEST(LadderRungs, CheckpointingReentrantHoldsTheRecomputedOutput) {
  const LadderInput in = inputOf(chainOfBlocks());
  EXPECT_EQ(peakUnits(checkpointRung(in, 1, CheckpointForm::Reentrant), in), 751);
}

TEST(LadderRungs, CheckpointingEverySecondBlockKeepsTheOthers) {
  const LadderInput in = inputOf(chainOfBlocks());
  EXPECT_EQ(peakUnits(checkpointRung(in, 2, CheckpointForm::NonReentrant), in), 751);
}

TEST(LadderRungs, AccumulationHalvesWhatScalesAndMakesGradientsAgain) {
  const LadderInput in = inputOf(chainOfBlocks());
  // The second micro-batch starts with the first's gradient and loss kept (171) and peaks at its
  // backward's first two gradients of half size: 522.
  EXPECT_EQ(peakUnits(batchRung(in, 2, true), in), 522);
  // One micro-batch of half the batch: 501.
  EXPECT_EQ(peakUnits(batchRung(in, 2, false), in), 501);
}

TEST(LadderRungs, AccumulationKeepsALaterGradientUntilItsBackwardStepEnds) {
  StepBuilder b;
  b.before(10, Category::Parameter);
  b.phase("forward");
  const uint64_t A = b.a(100, Category::Activation);
  b.phase("backward");
  const uint64_t g = b.a(100, Category::Temporary);
  b.a(10, Category::Gradient);
  const uint64_t ws = b.a(30, Category::Temporary);  // a library's workspace in the same step
  b.f(ws);
  b.f(A);
  b.f(g);
  b.a(1);  // the next step: the later micro-batch's gradient has been added in by now
  const Trace t = b.trace();
  const LadderInput in = inputOf(t);
  // Second micro-batch: 10 + 10 (gradient) + 1 + 50 (A) + 50 (g) + 10 (its gradient) + 30 = 161.
  EXPECT_EQ(peakUnits(batchRung(in, 2, true), in), 161);
}

// The fp32 gradient of a weight under autocast is made by the backward of the weight's cast, a step
// after the layer's own: once the layer's step has freed its workspace, its incoming gradient and the
// activation it saved. Made at the recorded fp32 gradient's place instead (the rule before), it met
// all three: 1026.
TEST(LadderRungs, AutocastMakesTheFp32GradientAfterTheLayersBackwardStep) {
  StepBuilder b;
  b.before(400, Category::Parameter);  // the weight
  b.before(10, Category::Input);
  b.phase("forward");
  const uint64_t A = b.a(10, Category::Activation);
  b.a(1);  // the loss
  b.phase("backward");
  const uint64_t g = b.a(10, Category::Temporary);
  b.a(400, Category::Gradient);
  const uint64_t ws = b.a(5, Category::Temporary);  // a size forward never made: kept whole
  b.f(ws);
  b.f(g);
  b.f(A);
  b.a(2, Category::Temporary);  // the next step
  const LadderInput in = inputOf(b.trace());
  const RungProgram r = autocastRung(in, LowPrecision::BFloat16);
  // 410 persistent, the weight's copy (200), the input's (5), A (5), the loss (1); backward: g (5), the
  // 2-byte gradient (200) and the workspace (5) in the layer's step, which then frees the workspace, g
  // and A and releases the weight's copy; the cast's step makes the fp32 gradient (400) beside the
  // 2-byte one: 410 + 5 + 1 + 200 + 400.
  EXPECT_EQ(peakUnits(r, in), 1016);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("a step of its own, after the layer's has ended"), std::string::npos) << why;
}

TEST(LadderRungs, AutocastCastsWeightsAndHalvesActivations) {
  const LadderInput in = inputOf(chainOfBlocks());
  const RungProgram r = autocastRung(in, LowPrecision::BFloat16);
  const ProgramPeak p = programPeak(r.program, in);
  // Activations and their gradients halve: the recorded 851 falls; the 20-unit gradient's weight
  // has a 10-unit copy kept until its gradient is made.
  EXPECT_LT(p.block_bytes, 851 * u);
  bool cast = false, low = false;
  for (const auto& blk : r.program.blocks()) {
    cast |= blk.kind == BlockRole::WeightCast && blk.bytes == 10 * u;
    low |= blk.kind == BlockRole::LowPrecisionGrad && blk.bytes == 10 * u;
  }
  EXPECT_TRUE(cast);
  EXPECT_TRUE(low);
  // 150 persistent + the 10-unit weight copy + the 50-unit input copy, forward at half (6 × 50)
  // and L (1 unit, too small to scale), the last output freed, then backward's two gradients at half.
  EXPECT_EQ(p.block_bytes / u, 150 + 10 + 50 + 6 * 50 + 1 - 50 + 50 + 50);
}

// A forward whose stacks name the ops: a block of an unnamed op (x), a layer norm's output (kept
// fp32 by autocast), dropout's bool mask and output; in backward a block of the layer norm's size
// (its gradient: fp32 too) and a weight's gradient.
// With `x_file`, x is made on line 1 of that file (no functional frame).
Trace stepWithAutocastOps(bool stacks, const std::string& x_file = "", int64_t x_units = 100) {
  StepBuilder b;
  b.before(50, Category::Parameter);
  b.phase("forward");
  const uint64_t x = x_file.empty() ? b.a(x_units, Category::Activation)
                                    : b.aIn(x_units, Category::Activation, {{"forward", x_file}, {"forward", "/work/model.py"}});
  const uint64_t n = stacks ? b.a(100, Category::Activation, "layer_norm") : b.a(100, Category::Activation);
  const uint64_t m = stacks ? b.a(24, Category::Activation, "dropout") : b.a(24, Category::Activation);
  const uint64_t d = stacks ? b.a(96, Category::Activation, "dropout") : b.a(96, Category::Activation);
  const uint64_t L = b.a(1);
  b.phase("backward");
  const uint64_t g = b.a(100, Category::Temporary);
  b.f(d);
  b.f(m);
  b.a(20, Category::Gradient);
  b.f(g);
  b.f(n);
  b.f(x);
  b.phase("after");
  b.f(L);
  return b.trace();
}

TEST(LadderRungs, AutocastKeepsWhatFloat32OpsMakeAndDropoutMasks) {
  const LadderInput in = inputOf(stepWithAutocastOps(true));
  ASSERT_TRUE(in.stacks);
  EXPECT_EQ(in.blocks[2].autocast, AutocastOp::Float32);
  EXPECT_EQ(in.blocks[3].autocast, AutocastOp::BoolMask);
  EXPECT_EQ(in.blocks[4].autocast, AutocastOp::Dropout);
  const RungProgram r = autocastRung(in, LowPrecision::BFloat16);
  // 50 parameters + the weight's 10-unit copy + the layer norm's 4-byte copy of x (100: layer_norm
  // keeps its input for backward, and so the copy instead of x) + its output 100 + the mask's 24 +
  // dropout's output at half (48) + L (1), then backward's 100 (the layer norm's size: fp32).
  EXPECT_EQ(peakUnits(r, in), 50 + 10 + 100 + 100 + 24 + 48 + 1 + 100);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("stay 4-byte"), std::string::npos) << why;
  EXPECT_NE(why.find("uncertain"), std::string::npos) << why;
}

// A line with no torch.nn.functional frame tells autocast's op by what it calls: transformers'
// GPT-2 GELU (torch.pow: fp32, and type promotion keeps the rest of the line fp32) was taken as
// 2-byte, 0.9 GB under the H200's measured bf16 peak.
TEST(LadderInput, SourceLinesThatCallAFloat32OpOrCastToFloat32) {
  EXPECT_EQ(autocastOpOfSourceLine(
                "        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * "
                "torch.pow(input, 3.0))))"),
            AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    hidden_states = hidden_states * torch.rsqrt(variance + self.eps)"),
            AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    variance = hidden_states.pow(2).mean(-1, keepdim=True)"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    logits = logits.float()"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    h = h.to(torch.float32)"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    h = h.to(dtype=torch.float)"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    y = x ** 2"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    p = scores.softmax(dim=-1)"), AutocastOp::Float32);
  // The module's fp32 parameter in arithmetic: type promotion (Llama's RMSNorm returns fp32).
  EXPECT_EQ(autocastOpOfSourceLine("    return self.weight * hidden_states.to(input_dtype)"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    return (x - mean) / std * self.weight + self.bias"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    w = self.weight"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    y = f(self.weight, x) + self.weights_scale"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    y = self.weight.t() @ x"), AutocastOp::Unknown);
  // A linear layer written as a call: on the lower-precision list (transformers' Conv1D).
  EXPECT_EQ(autocastOpOfSourceLine("        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)"),
            AutocastOp::LowPrecision);
  EXPECT_EQ(autocastOpOfSourceLine("    return F.linear(x, self.w, self.b)"), AutocastOp::LowPrecision);
  EXPECT_EQ(autocastOpOfSourceLine("    return F.linear(x, self.w).float()"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfSourceLine("    h = h.to(torch.float16)"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    y = x * math.exp(2.0) + math.log(3)"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    h = self.act(self.fc(x))  # torch.pow(x, 3) was slower"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    total = sum(sizes)"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    out = self.proj(x, **kwargs) + x"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    out = f(**kwargs)"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfSourceLine("    cfg = {**base, 'lr': 1}"), AutocastOp::Unknown);
}

// The same step as stepWithAutocastOps, but x made on a line of transformers' code in a venv under
// /opt/torch (not PyTorch's file).
const std::string kActivations = "/opt/torch/.venv/lib/python3.12/site-packages/transformers/activations.py";
const std::string kLlama = "/opt/torch/.venv/lib/python3.12/site-packages/transformers/models/llama/modeling_llama.py";

TEST(LadderRungs, AutocastKeepsWhatALineCallingAFloat32OpMakes) {
  const Trace t = stepWithAutocastOps(true, kActivations);
  const LadderInput blind = inputOf(t);
  EXPECT_EQ(blind.blocks[1].autocast, AutocastOp::Unknown);
  const RungProgram blind_rung = autocastRung(blind, LowPrecision::BFloat16);
  // x taken as 2-byte: layer_norm keeps a 4-byte copy of it (100) for backward instead.
  EXPECT_EQ(peakUnits(blind_rung, blind), 50 + 10 + 100 + 100 + 24 + 48 + 1 + 100);
  auto upcasts = [](const RungProgram& p) {
    return std::count_if(p.program.blocks().begin(), p.program.blocks().end(),
                         [](const auto& blk) { return blk.kind == BlockRole::UpCast; });
  };
  EXPECT_EQ(upcasts(blind_rung), 1);

  std::vector<std::string> asked;
  LadderSelection read;
  read.source = [&asked](std::string_view file, uint32_t line) -> std::optional<std::string> {
    asked.push_back(fmt::format("{}:{}", file, line));
    if (file == kActivations) return std::string("    return torch.tanh(torch.pow(x, 3.0))");
    return std::nullopt;
  };
  auto in = ladderInput(t, read);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->blocks[1].autocast, AutocastOp::Float32);
  EXPECT_TRUE(in->blocks[1].fp32_by_source);
  EXPECT_EQ(in->fp32_source_lines, std::vector<std::string>{"activations.py:1"});
  EXPECT_EQ(asked, std::vector<std::string>{kActivations + ":1"});  // once a line; functional frames need none
  const RungProgram r = autocastRung(*in, LowPrecision::BFloat16);
  // x stays 4-byte, itself saved: layer_norm reads it as it is, with no copy (the same peak here).
  EXPECT_EQ(peakUnits(r, *in), 50 + 10 + 100 + 100 + 24 + 48 + 1 + 100);
  EXPECT_EQ(upcasts(r), 0);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("by the program's source"), std::string::npos) << why;
  EXPECT_NE(why.find("activations.py:1"), std::string::npos) << why;

  LadderSelection unreadable;
  unreadable.source = [](std::string_view, uint32_t) -> std::optional<std::string> { return std::nullopt; };
  auto missing = ladderInput(t, unreadable);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->source_lines_unread, 1u);
  const std::string unread = fmt::format("{}", fmt::join(autocastRung(*missing, LowPrecision::BFloat16).reasoning, "\n"));
  EXPECT_NE(unread.find("could not be read here"), std::string::npos) << unread;
}

// Python evaluates `0.5 * input` before `torch.pow(...)`: that block never sees pow's fp32 result.
TEST(LadderInput, BlocksALineMakesBeforeItsFloat32Op) {
  EXPECT_EQ(blocksBeforeFloat32Op(
                "        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * "
                "torch.pow(input, 3.0))))"),
            1);
  EXPECT_EQ(blocksBeforeFloat32Op("    hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)"),
            1);
  EXPECT_EQ(blocksBeforeFloat32Op("    variance = hidden_states.pow(2).mean(-1, keepdim=True)"), 0);
  EXPECT_EQ(blocksBeforeFloat32Op("    logits = logits.float()"), 0);
  EXPECT_EQ(blocksBeforeFloat32Op("    h = h.view(b, s, d).to(torch.float32)"), 0);  // a view allocates nothing
  EXPECT_EQ(blocksBeforeFloat32Op("    out = torch.exp(-x[:, 0]) * scale"), 1);
  EXPECT_EQ(blocksBeforeFloat32Op("    y = x ** 2"), 0);
  EXPECT_EQ(blocksBeforeFloat32Op("    p = F.softmax(s / 8, dim=-1)"), 1);
  // Not read with confidence: a call of the program's own code, no float32 op, not an expression.
  EXPECT_EQ(blocksBeforeFloat32Op("    q_embed = (q * cos) + (rotate_half(q) * sin)"), std::nullopt);
  EXPECT_EQ(blocksBeforeFloat32Op("    h = self.act(self.fc(x)).pow(2)"), std::nullopt);
  EXPECT_EQ(blocksBeforeFloat32Op("    return 0.5 * x * (1 + torch.tanh(x))"), std::nullopt);
  EXPECT_EQ(blocksBeforeFloat32Op("    if x.sum() > 0:"), std::nullopt);
  EXPECT_EQ(blocksBeforeFloat32Op("    y = x.pow(2"), std::nullopt);
  EXPECT_EQ(blocksBeforeFloat32Op(""), std::nullopt);
  // A file is data: nesting past the bound is not read (the parser recurses once a level).
  EXPECT_EQ(blocksBeforeFloat32Op("y = " + std::string(16384, '(') + "x.pow(2)" + std::string(16384, ')')), std::nullopt);
  EXPECT_EQ(blocksBeforeFloat32Op("y = " + std::string(16384, '-') + "x.pow(2)"), std::nullopt);
  EXPECT_EQ(blocksBeforeFloat32Op("y = " + std::string(8, '(') + "x.pow(2)" + std::string(8, ')')), 0);
}

// Which float32-list op a line calls first tells whether the copy autocast makes of a 2-byte input is
// kept for backward (pow and layer_norm read their input there; softmax and exp their result).
TEST(PythonLine, TheFirstFloat32OpAndWhetherItKeepsItsInput) {
  EXPECT_EQ(firstFloat32Op("        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + "
                           "0.044715 * torch.pow(input, 3.0))))"),
            "pow");
  EXPECT_EQ(firstFloat32Op("    y = x ** 2"), "pow");
  EXPECT_EQ(firstFloat32Op("    h = h.view(b, s, d).to(torch.float32).exp()"), "float");
  EXPECT_EQ(firstFloat32Op("    p = F.softmax(s / 8, dim=-1)"), "softmax");
  EXPECT_EQ(firstFloat32Op("    y = x * 2 + 1"), std::nullopt);
  EXPECT_EQ(firstFloat32Op("    q_embed = (q * cos) + (rotate_half(q) * sin)"), std::nullopt);
  EXPECT_TRUE(float32OpSavesItsInput("pow"));
  EXPECT_TRUE(float32OpSavesItsInput("layer_norm"));
  EXPECT_TRUE(float32OpSavesItsInput("log"));
  EXPECT_FALSE(float32OpSavesItsInput("softmax"));
  EXPECT_FALSE(float32OpSavesItsInput("exp"));
  EXPECT_FALSE(float32OpSavesItsInput("float"));
}

// Llama's attention: RMSNorm returns fp32 (`self.weight * h`: its fp32 weight promotes) and three
// nn.Linear read it. Under autocast each saves its own 2-byte copy of that input for backward (only
// the weights' casts are cached), and nothing keeps the 4-byte output once the last has read it. The
// H200's bf16 Llama was 0.40 GB over a prediction that kept one 2-byte input for all three.
Trace normIntoThreeLinears() {
  const std::string linear = "/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py";
  StepBuilder b;
  b.before(50, Category::Parameter);
  b.phase("forward");
  const uint64_t x = b.aIn(100, Category::Activation, {{"forward", kLlama}});
  std::vector<uint64_t> outs;
  for (int i = 0; i < 3; ++i) outs.push_back(b.aIn(40, Category::Activation, {{"forward", linear}, {"forward", "/work/attn.py"}}));
  const uint64_t L = b.a(1);
  b.phase("backward");
  for (auto it = outs.rbegin(); it != outs.rend(); ++it) b.f(*it);
  b.a(20, Category::Gradient);
  b.f(x);
  b.phase("after");
  b.f(L);
  return b.trace();
}

TEST(LadderRungs, AutocastGivesEachLinearReadingA4ByteInputItsOwnSavedCopy) {
  LadderSelection read;
  read.source = [](std::string_view file, uint32_t) -> std::optional<std::string> {
    if (file == kLlama) return std::string("        return self.weight * hidden_states.to(input_dtype)");
    return std::nullopt;
  };
  auto in = ladderInput(normIntoThreeLinears(), read);
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->blocks[1].autocast, AutocastOp::Float32);
  ASSERT_EQ(in->blocks[2].autocast, AutocastOp::LowPrecision);
  const RungProgram r = autocastRung(*in, LowPrecision::BFloat16);
  // 50 parameters + the weight's 10-unit copy + x (100, fp32) + three copies of x (50 each) beside
  // the three outputs at half (20 each): 370 when the third is made; then x goes (one copy of x for
  // all three, the rule before, gave 50 + 10 + 100 + 60 = 220).
  EXPECT_EQ(peakUnits(r, *in), 50 + 10 + 100 + 3 * (50 + 20));
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("saves its own 2-byte copy of it for backward"), std::string::npos) << why;
  EXPECT_NE(why.find("3 such layers per forward"), std::string::npos) << why;
}

// GPT-2's GELU on a Linear's 2-byte output h: the line's torch.pow casts h to a 4-byte copy and keeps
// that copy for backward (pow reads its input there), not h, which goes once the line has run. The
// H200's bf16 GPT-2 was 0.3 GB over a prediction that dropped the copy when pow had run.
TEST(LadderRungs, AutocastKeepsTheCopyAFloat32OpThatReadsItsInputInBackwardMade) {
  const std::string linear = "/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py";
  StepBuilder b;
  b.before(50, Category::Parameter);
  b.phase("forward");
  const uint64_t h = b.aIn(100, Category::Activation, {{"forward", linear}, {"forward", "/work/mlp.py"}});
  const uint64_t half_h = b.aIn(100, Category::Activation, {{"forward", kActivations}, {"forward", "/work/mlp.py"}});
  const uint64_t p = b.aIn(100, Category::Activation, {{"forward", kActivations}, {"forward", "/work/mlp.py"}});
  const uint64_t next = b.aIn(30, Category::Activation, {{"forward", "/work/mlp.py"}});
  const uint64_t L = b.a(1);
  b.phase("backward");
  for (uint64_t a : {next, p, half_h}) b.f(a);
  const uint64_t ws = b.a(300, Category::Temporary);  // a size forward never made: kept whole
  b.f(ws);
  b.a(20, Category::Gradient);
  b.f(h);
  b.phase("after");
  b.f(L);
  LadderSelection read;
  read.source = [](std::string_view file, uint32_t) -> std::optional<std::string> {
    if (file == kActivations) return std::string("        return 0.5 * input * torch.pow(input, 3.0)");
    return std::nullopt;
  };
  auto in = ladderInput(b.trace(), read);
  ASSERT_TRUE(in.ok());
  ASSERT_TRUE(in->blocks[3].float32_saves_input);
  const RungProgram r = autocastRung(*in, LowPrecision::BFloat16);
  // Forward: 50 + the weight's copy (10) + h (50) + 0.5 * h (50) + pow's 4-byte copy of h (100) + its
  // output (100) = 360, then h goes. Backward's workspace (300) meets the parameters, the weight's
  // copy, pow's copy and the loss: 461. Dropping the copy once pow had run and keeping h (the rule
  // before) gave 411 there.
  EXPECT_EQ(peakUnits(r, *in), 50 + 10 + 100 + 1 + 300);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("keep their input for backward"), std::string::npos) << why;
}

// Two runs of one such line (two layers): each run's first block stays as the input is, the
// second is 4-byte.
TEST(LadderRungs, AutocastKeepsTheBlocksALineMakesBeforeItsFloat32OpAsTheInputIs) {
  StepBuilder b;
  b.before(50, Category::Parameter);
  b.phase("forward");
  std::vector<uint64_t> made;
  for (int layer = 0; layer < 2; ++layer) {
    made.push_back(b.a(100, Category::Activation, "linear", "/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py"));
    made.push_back(b.aIn(100, Category::Activation, {{"forward", kActivations}}));
    made.push_back(b.aIn(100, Category::Activation, {{"forward", kActivations}}));
  }
  const uint64_t L = b.a(1);
  b.phase("backward");
  for (auto it = made.rbegin(); it != made.rend(); ++it) b.f(*it);
  b.phase("after");
  b.f(L);
  LadderSelection read;
  read.source = [](std::string_view file, uint32_t) -> std::optional<std::string> {
    if (file == kActivations) return std::string("        return 0.5 * input * torch.pow(input, 3.0)");
    return std::nullopt;
  };
  auto in = ladderInput(b.trace(), read);
  ASSERT_TRUE(in.ok());
  // Blocks: the parameter, then per layer the Linear's output, the line's first and second block.
  for (int layer = 0; layer < 2; ++layer) {
    EXPECT_EQ(in->blocks[2 + 3 * layer].autocast, AutocastOp::Unknown) << layer;
    EXPECT_EQ(in->blocks[3 + 3 * layer].autocast, AutocastOp::Float32) << layer;
    EXPECT_TRUE(in->blocks[3 + 3 * layer].fp32_by_source) << layer;
  }
}

TEST(LadderRungs, AutocastWithoutStacksHalvesEveryActivationAndSaysSo) {
  const LadderInput in = inputOf(stepWithAutocastOps(false));
  EXPECT_FALSE(in.stacks);
  const RungProgram r = autocastRung(in, LowPrecision::BFloat16);
  EXPECT_EQ(peakUnits(r, in), 50 + 10 + 50 + 50 + 12 + 48 + 1 + 50);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("no Python stacks"), std::string::npos) << why;
}

// A model whose forward starts from an embedding (fp32 weights: on neither of autocast's lists) and
// whose three repeated blocks each make a Linear's output (h, 40 units) and add it to the block's
// input in the block's own forward (r, 100 units: the residual stream). Type promotion keeps the
// stream 4-byte: the embedding's sum e, each r and the stream's gradient g. With `from_linear` the
// first block's input comes out of a Linear: 2-byte, and so is the stream.
Trace residualStream(bool from_linear) {
  const std::string torch = "/venv/lib/python3.12/site-packages/torch/nn/";
  StepBuilder b;
  b.before(50, Category::Parameter);
  b.phase("forward");
  const uint64_t t = b.aIn(100, Category::Temporary, {{"embedding", torch + "functional.py"}, {"forward", "/work/model.py"}});
  const uint64_t e = from_linear ? b.aIn(100, Category::Activation, {{"forward", torch + "modules/linear.py"}, {"forward", "/work/model.py"}})
                                 : b.aIn(100, Category::Activation, {{"forward", "/work/model.py"}});
  b.f(t);
  std::vector<uint64_t> saved{e};
  for (int i = 0; i < 3; ++i) {
    saved.push_back(b.aIn(40, Category::Activation,
                          {{"forward", torch + "modules/linear.py"}, {"forward", "/work/block.py"}, {"forward", "/work/model.py"}}));
    saved.push_back(b.aIn(100, Category::Activation, {{"forward", "/work/block.py"}, {"forward", "/work/model.py"}}));
  }
  const uint64_t L = b.a(1);
  b.phase("backward");
  const uint64_t g = b.a(100, Category::Temporary);
  b.a(20, Category::Gradient);
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) b.f(*it);
  b.f(g);
  b.phase("after");
  b.f(L);
  return b.trace();
}

TEST(LadderRungs, AutocastKeepsTheResidualStreamFp32ByTypePromotion) {
  const LadderInput in = inputOf(residualStream(false));
  ASSERT_TRUE(in.repeated.found());
  ASSERT_EQ(in.repeated.count, 3u);
  const RungProgram r = autocastRung(in, LowPrecision::BFloat16);
  // 50 parameters, the weight's 10-unit copy, e (100), 3 × (h at half, 20, + r, 100), L (1); backward:
  // the stream's gradient g (100, fp32 like its tensor) and the weight's 2-byte gradient (10).
  // Halving e, each r and g (the rule before) gave 381. Each block's Linear reads the 4-byte stream
  // itself here (no norm between), so it saves a 2-byte copy of it (50) and the stream it read is not
  // kept: 3 × (50 + 20) + the last r (100) stay for backward.
  EXPECT_EQ(peakUnits(r, in), 50 + 10 + 3 * (50 + 20) + 100 + 1 + 100 + 10);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("type promotion"), std::string::npos) << why;
  // A stream that starts from a Linear's output is 2-byte: e, each r and g halve.
  const LadderInput lin = inputOf(residualStream(true));
  ASSERT_TRUE(lin.repeated.found());
  EXPECT_EQ(peakUnits(autocastRung(lin, LowPrecision::BFloat16), lin), 50 + 10 + 50 + 3 * (20 + 50) + 1 + 50 + 10);
}

// A language model's loss: a Linear makes the logits (2-byte under autocast) and cross_entropy's
// log_softmax (on the float32 list) makes its output in their shape. Under autocast the op reads a
// 4-byte copy of its 2-byte input while it runs (transformers' loss makes it itself with .float(),
// a no-op in the fp32 run): the GPT-2 and Llama-style rows missed by 0.825 and 0.671 GB, the size of
// that copy of their logits (0.823 and 0.524 GB) and more.
Trace lossOnLogits(bool logits_from_linear) {
  const std::string torch = "/venv/lib/python3.12/site-packages/torch/nn/";
  StepBuilder b;
  b.before(50, Category::Parameter);
  b.phase("forward");
  const uint64_t h = logits_from_linear
                         ? b.aIn(100, Category::Activation, {{"forward", torch + "modules/linear.py"}, {"forward", "/work/model.py"}})
                         : b.a(100, Category::Activation, "layer_norm");
  const uint64_t ls = b.a(100, Category::Activation, "cross_entropy");
  const uint64_t L = b.a(1);
  b.f(h);
  b.phase("backward");
  const uint64_t g = b.a(100, Category::Temporary);
  b.f(ls);
  b.a(20, Category::Gradient);
  b.f(g);
  b.phase("after");
  b.f(L);
  return b.trace();
}

TEST(LadderRungs, AutocastCastsAFloat32OpsTwoByteInputUpWhileItRuns) {
  const LadderInput in = inputOf(lossOnLogits(true));
  const RungProgram r = autocastRung(in, LowPrecision::BFloat16);
  // 50 parameters, the weight's 10-unit copy, the logits at half (50), their 4-byte copy (100) and
  // log_softmax's output (100). Without the copy the peak was in backward: 251.
  EXPECT_EQ(peakUnits(r, in), 50 + 10 + 50 + 100 + 100);
  bool upcast = false;
  for (const auto& blk : r.program.blocks()) upcast |= blk.kind == BlockRole::UpCast && blk.bytes == 100 * u;
  EXPECT_TRUE(upcast);
  const std::string why = fmt::format("{}", fmt::join(r.reasoning, "\n"));
  EXPECT_NE(why.find("reads a 4-byte copy"), std::string::npos) << why;
  // An input autocast keeps 4-byte (a layer norm's output) needs no copy: 50 + 10 + 100 + 100 + 1.
  const LadderInput kept = inputOf(lossOnLogits(false));
  const RungProgram k = autocastRung(kept, LowPrecision::BFloat16);
  EXPECT_EQ(peakUnits(k, kept), 50 + 10 + 100 + 100 + 1);
  for (const auto& blk : k.program.blocks()) EXPECT_NE(blk.kind, BlockRole::UpCast);
}

// The chain of blocks with an optimizer, recorded on `device` with a 10 ms step: 3 ms forward, 6 ms
// backward, 1 ms optimizer.
LadderInput timedOn(const char* device) {
  LadderInput in = inputOf(chainOfBlocks(true));
  in.device_name = device;
  LadderTiming t;
  t.what = "step_time";
  t.median_ms = 10;
  t.forward_ms = 3, t.backward_ms = 6, t.optimizer_ms = 1;
  in.timing = t;
  return in;
}

double allocatedBytes(const MemoryProgram& p) {
  double bytes = 0;
  for (const MemoryProgram::Op& op : p.ops())
    if (op.alloc) bytes += static_cast<double>(p.blocks()[op.block].bytes);
  return bytes;
}

// With kernel records: the GEMM kernels at the datasheet ratio; the other kernels moving the bytes
// the step allocates under autocast (the rewrite's: 2-byte activations, what stays fp32, autocast's
// casts and copies), except the foreach kernels over parameters, gradients and optimizer state,
// which stay fp32; fp16's loss scaler also reads and writes every gradient once a step. Before, the
// other kernels moved half the bytes and the casts were added on top: the H200 sample's fp32 run
// predicted its bf16 step 11 % slow (2.68 ms against 2.42), GPT-2 on an H100 the optimizer's fp32
// foreach kernels (3.7 ms) at half their time.
TEST(Ladder, AutocastStepTimeMovesTheRewritesBytesAndKeepsTheForeachKernels) {
  LadderInput in = timedOn("NVIDIA H200");
  KernelTime k;
  k.busy_ms_per_step = 9, k.matmul_ms_per_step = 6, k.foreach_ms_per_step = 1;
  in.kernels = k;
  const LadderReport rep = predictLadder(in);
  const LadderRow* bf16 = rep.row("bf16");
  const LadderRow* fp16 = rep.row("fp16");
  ASSERT_TRUE(bf16->step_ms && fp16->step_ms);
  const double r = 67 * 0.86 / (989 * 0.61), bandwidth = 4.8e9 * 0.8;  // bytes a ms
  const double was = allocatedBytes(identityRung(in).program);
  const double now = allocatedBytes(autocastRung(in, LowPrecision::BFloat16).program);
  ASSERT_GT(was, 0);
  EXPECT_NEAR(*bf16->step_ms, 10 - 6 * (1 - r) - (3 - (2 * now / was + 1)), 1e-9);
  EXPECT_NEAR(*fp16->step_ms - *bf16->step_ms, 2.0 * 20 * u / bandwidth, 1e-9);
  EXPECT_NE(bf16->time_basis.find("foreach kernels"), std::string::npos) << bf16->time_basis;
  EXPECT_EQ(bf16->time_basis.find("plus autocast's casts"), std::string::npos) << "the casts are in the bytes";
  EXPECT_NE(fp16->time_basis.find("loss scaler"), std::string::npos) << fp16->time_basis;
}

// Without kernel records (programs are recorded without them by default) the bf16 step was taken as
// all matrix products sped up by the datasheet ratio: GPT-2 on the H100 predicted 12.9 ms against a
// measured 42.7 ms, Llama 18.6 against 61.1. Forward and backward now split into bandwidth-bound
// kernels, timed from the bytes the step allocates (3 bytes moved a byte, at 80 % of the bandwidth),
// and matrix products, the rest; and the step never runs faster than the host launches it.
TEST(Ladder, AutocastStepTimeWithoutKernelsMovesTheStepsBytesAndWaitsForTheHost) {
  LadderInput in = timedOn("NVIDIA H100 80GB HBM3");
  const double r = 67 * 0.86 / (989 * 0.61), per_ms = 3.35e9 * 0.8;  // bytes a ms
  const double was = allocatedBytes(identityRung(in).program);
  const double now = allocatedBytes(autocastRung(in, LowPrecision::BFloat16).program);
  ASSERT_GT(was, 0);
  const double moved_was = 3 * was / per_ms, moved_now = 3 * now / per_ms;
  const double gpu = 10 - 9 + (9 - moved_was) * r + moved_now;
  {
    const LadderReport rep = predictLadder(in);
    const LadderRow* bf16 = rep.row("bf16");
    ASSERT_TRUE(bf16->step_ms);
    EXPECT_NEAR(*bf16->step_ms, gpu, 1e-9);
    EXPECT_NE(bf16->time_basis.find("no kernel records"), std::string::npos) << bf16->time_basis;
    EXPECT_EQ(bf16->time_basis.find("plus autocast's casts"), std::string::npos) << "the casts are in the bytes";
  }
  // The host took 8 ms to launch the recorded step: autocast's step takes at least that, plus its
  // extra operators (its casts, one allocation each).
  in.timing->host_ms = 8;
  const LadderReport rep = predictLadder(in);
  const LadderRow* bf16 = rep.row("bf16");
  ASSERT_TRUE(bf16->step_ms);
  EXPECT_GT(*bf16->step_ms, 8);
  EXPECT_LT(*bf16->step_ms, 8 + 20 * kEagerOpOverheadMs);
  EXPECT_NE(bf16->time_basis.find("the host, not the GPU, bounds it"), std::string::npos) << bf16->time_basis;
}

// cuBLAS names its Hopper GEMM kernels nvjet_sm90_...: matrix products as much as a cutlass or xmma
// kernel (the H200's bf16 and fp16 runs spend 1.4 ms a step in them). Counted as other kernels
// before, they made a 2-byte recording look bandwidth-bound.
TEST(LadderInput, CublasNvjetKernelsAreMatrixProducts) {
  Trace t = chainOfBlocks(true);
  t.kernel_names = {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT", "vectorized_elementwise_kernel"};
  t.kernels.push_back(KernelInterval{0, 7, 2000, 5000, 0, 0});
  t.kernels.push_back(KernelInterval{0, 7, 5000, 6000, 1, 0});
  const LadderInput in = inputOf(t);
  ASSERT_TRUE(in.kernels.has_value());
  EXPECT_EQ(in.optimizer_steps, 1u);
  EXPECT_NEAR(in.kernels->matmul_ms_per_step, 0.003, 1e-12);
  EXPECT_NEAR(in.kernels->busy_ms_per_step, 0.004, 1e-12);
}

TEST(LadderInput, AutocastOpsByTheirFunctionalName) {
  EXPECT_EQ(autocastOpOfFunctional("layer_norm"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfFunctional("cross_entropy"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfFunctional("softmax"), AutocastOp::Float32);
  EXPECT_EQ(autocastOpOfFunctional("dropout"), AutocastOp::Dropout);
  EXPECT_EQ(autocastOpOfFunctional("linear"), AutocastOp::Unknown);
  EXPECT_EQ(autocastOpOfFunctional("gelu"), AutocastOp::Unknown);
}

TEST(LadderRungs, AutocastDoesNotApplyTwice) {
  StepBuilder b;
  b.phase("forward");
  const uint64_t x = b.a(10);
  b.phase("backward");
  b.f(x);
  b.setConfig("autocast", "BFloat16");
  const Trace t = b.trace();
  const LadderInput in = inputOf(t);
  const RungProgram r = autocastRung(in, LowPrecision::BFloat16);
  EXPECT_FALSE(r.applicable);
  EXPECT_NE(r.why_not.find("already autocasts"), std::string::npos);
}

TEST(LadderRungs, ShardingDividesOptimizerStateAndItsWorkingMemory) {
  const LadderInput in = inputOf(chainOfBlocks(true));
  // Recorded: after backward 171 (+ 1 L freed → 170), optimizer: 250 state, +20 temp = 270;
  // the backward peak 851 is higher.
  EXPECT_EQ(peakUnits(identityRung(in), in), 851);
  const RungProgram z1 = shardingRung(in, Sharding::Zero1, 2);
  const ProgramPeak p = programPeak(z1.program, in);
  EXPECT_EQ(p.block_bytes / u, 851);
  int64_t state = 0;
  for (const auto& blk : z1.program.blocks())
    if (blk.kind == BlockRole::OptimizerState) state += blk.bytes;
  EXPECT_EQ(state, 40 * u);  // 2 × 40 / 2
}

// A data-parallel step of 10 ms, 2 of them the optimizer's and 1.5 the recorded all-reduce. A ring
// all-reduce is a reduce-scatter and an all-gather: ZeRO-1 and 2 move the same bytes (the step
// loses half the optimizer's time only); full sharding gathers the parameters again for backward,
// half the collectives' time more. The rule before added half an all-reduce to ZeRO-1 (9.75 ms),
// 11-15 % over what two H200s measured.
TEST(Ladder, ShardingKeepsTheAllReducesTrafficAndFullShardingAddsHalf) {
  LadderInput in = inputOf(chainOfBlocks(true));
  in.world_size = 2;
  LadderTiming t;
  t.what = "step";
  t.median_ms = t.min_ms = t.max_ms = 10;
  t.samples = 5;
  t.optimizer_ms = 2, t.forward_ms = 2, t.backward_ms = 4, t.other_ms = 2;
  t.collective_ms = 1.5;
  in.timing = t;
  const LadderReport rep = predictLadder(in);
  for (const char* id : {"zero1:N=2", "zero2:N=2"}) {
    ASSERT_NE(rep.row(id), nullptr) << id;
    ASSERT_TRUE(rep.row(id)->step_ms.has_value()) << id;
    EXPECT_DOUBLE_EQ(*rep.row(id)->step_ms, 9.0) << id;
    EXPECT_NE(rep.row(id)->time_basis.find("as many bytes as the all-reduce"), std::string::npos) << rep.row(id)->time_basis;
  }
  ASSERT_NE(rep.row("fsdp:N=2"), nullptr);
  EXPECT_DOUBLE_EQ(rep.row("fsdp:N=2")->step_ms.value_or(0), 9.0 + 0.75);
}

// One device recorded: no collectives in it, so the sharding rows' step is the compute (the
// optimizer's time divided by N) plus the gradients moved over the devices' link, an all-reduce's
// bytes for ZeRO-1 and 2 and half as much again for full sharding; a device whose link is not known
// gets no time unless one is given.
TEST(Ladder, OneDeviceShardingTimesTheCollectivesOverTheLink) {
  LadderInput in = inputOf(chainOfBlocks(true));
  LadderTiming t;
  t.what = "step";
  t.median_ms = t.min_ms = t.max_ms = 10;
  t.samples = 5;
  t.optimizer_ms = 2, t.forward_ms = 2, t.backward_ms = 4, t.other_ms = 2;
  in.timing = t;
  const double gradients = 20 * u;  // what the chain's backward makes
  in.device_name = "NVIDIA H200";
  const double bus = interconnectOf(in.device_name, 2)->bus_gb_per_s;
  LadderReport rep = predictLadder(in);
  ASSERT_NE(rep.row("zero1:N=2"), nullptr);
  EXPECT_NEAR(rep.row("zero1:N=2")->step_ms.value_or(0), 9.0 + gradients / (bus * 1e9) * 1e3, 1e-12);
  EXPECT_NE(rep.row("zero1:N=2")->time_basis.find("NVLink 4"), std::string::npos) << rep.row("zero1:N=2")->time_basis;
  EXPECT_NE(rep.row("zero1:N=2")->time_basis.find("not hidden"), std::string::npos);

  LadderOptions o;
  o.link_gb_per_s = 0.001;  // 1 MB/s: 10 kB take 10.24 ms
  rep = predictLadder(in, o);
  EXPECT_NEAR(rep.row("zero2:N=2")->step_ms.value_or(0), 9.0 + 10.24, 1e-9);
  EXPECT_NEAR(rep.row("fsdp:N=2")->step_ms.value_or(0), 9.0 + 1.5 * 10.24, 1e-9);
  EXPECT_NE(rep.row("fsdp:N=2")->time_basis.find("asked for"), std::string::npos);
  o.shard_devices = 4;  // a ring over 4: 2·3/4 of the bytes each way
  rep = predictLadder(in, o);
  EXPECT_NEAR(rep.row("zero1:N=4")->step_ms.value_or(0), 10 - 2 * 0.75 + 1.5 * 10.24, 1e-9);

  in.device_name = "cpu";
  rep = predictLadder(in);
  EXPECT_FALSE(rep.row("zero1:N=2")->step_ms.has_value());
  EXPECT_NE(rep.row("zero1:N=2")->time_basis.find("--link-bandwidth"), std::string::npos);

  // A data-parallel recording whose collectives were not timed already holds them in its step:
  // the link's time is not added on top.
  in.device_name = "NVIDIA H200";
  in.world_size = 2;
  rep = predictLadder(in);
  EXPECT_FALSE(rep.row("zero1:N=2")->step_ms.has_value());
  EXPECT_NE(rep.row("zero1:N=2")->time_basis.find("does not say how long its collectives took"), std::string::npos);
}

TEST(LadderRungs, CheckpointingNeedsRepeatedBlocks) {
  StepBuilder b;
  b.phase("forward");
  const uint64_t x = b.a(10, Category::Activation);
  const uint64_t y = b.a(20, Category::Activation);
  b.phase("backward");
  b.f(y);
  b.f(x);
  const Trace t = b.trace();
  const LadderInput in = inputOf(t);
  const RungProgram r = checkpointRung(in, 1, CheckpointForm::NonReentrant);
  EXPECT_FALSE(r.applicable);
  EXPECT_NE(r.why_not.find("no repeated blocks"), std::string::npos);
}

TEST(LadderBlocks, LongestRepetitionFindsTheBlocksAfterAHead) {
  // head h, then (a b c) × 4, then a tail.
  const std::vector<uint64_t> s = {9, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 7, 7};
  const Repetition r = longestRepetition(s);
  EXPECT_EQ(r.start, 1u);
  EXPECT_EQ(r.period, 3u);
  EXPECT_EQ(r.count, 4u);
}

TEST(LadderBlocks, PrefersMoreRepeatsOfAShorterBlock) {
  const std::vector<uint64_t> s = {1, 2, 1, 2, 1, 2, 1, 2};
  const Repetition r = longestRepetition(s);
  EXPECT_EQ(r.period, 2u);
  EXPECT_EQ(r.count, 4u);
}

TEST(LadderBlocks, NothingRepeats) {
  EXPECT_EQ(longestRepetition({1, 2, 3, 4, 5}).count, 0u);
  EXPECT_EQ(longestRepetition({}).count, 0u);
}

TEST(Ladder, ReportHasEveryRungAndMeasuredErrors) {
  const Trace t = chainOfBlocks(true);
  const LadderInput in = inputOf(t);
  LadderOptions o;
  o.device_memory = 700 * u;
  LadderReport rep = predictLadder(in, o);
  ASSERT_NE(rep.row("baseline"), nullptr);
  ASSERT_NE(rep.row("compile"), nullptr);
  EXPECT_FALSE(rep.row("compile")->predicted);
  ASSERT_NE(rep.row("checkpoint:every=1"), nullptr);
  EXPECT_EQ(rep.row("checkpoint:every=1")->peak_allocated_blocks, 651 * u);
  EXPECT_EQ(rep.row("checkpoint:every=1:reentrant")->peak_allocated_blocks, 751 * u);
  EXPECT_EQ(rep.row("accumulate:k=2")->peak_allocated_blocks, 522 * u);
  ASSERT_NE(rep.row("zero1:N=2"), nullptr);
  // 851 does not fit in 700; checkpointing every block (651) does.
  EXPECT_FALSE(*rep.row("baseline")->fits);
  EXPECT_TRUE(*rep.row("checkpoint:every=1")->fits);
  ASSERT_TRUE(rep.row("baseline")->max_batch_scale.has_value());
  EXPECT_LT(*rep.row("baseline")->max_batch_scale, 1.0);
  EXPECT_EQ(rep.diagnosis.verdict, "memory-tight");
  attachMeasured(rep, {MeasuredRung{"checkpoint:every=1", "hand", 0, 700 * u, -1, std::nullopt}});
  ASSERT_TRUE(rep.row("checkpoint:every=1")->peak_error.has_value());
  EXPECT_NEAR(*rep.row("checkpoint:every=1")->peak_error, 651.0 / 700 - 1, 1e-12);
  const std::string json = ladderJson(rep, "hand.sawtooth");
  EXPECT_NE(json.find("\"id\": \"checkpoint:every=1:reentrant\""), std::string::npos);
  EXPECT_NE(json.find("\"verdict\": \"memory-tight\""), std::string::npos);
}

// What a recording cannot settle is given as a range around the prediction, in the row, its
// reasoning and the JSON, with whether the measured peak lies in it.
TEST(Ladder, RowsSayTheRangeARecordingLeavesOpen) {
  const LadderInput in = inputOf(chainOfBlocks(true));
  LadderReport rep = predictLadder(in);
  // Non-reentrant: one recomputed tensor (100 units) its formula may drop before its step's end.
  const LadderRow* nr = rep.row("checkpoint:every=1");
  ASSERT_TRUE(nr->peak_low && nr->peak_high);
  EXPECT_EQ(*nr->peak_low, 551 * u);
  EXPECT_EQ(*nr->peak_high, 651 * u);
  EXPECT_NE(nr->reasoning.back().find("the peak the recording leaves open"), std::string::npos);
  // Reentrant checkpointing is exact: no range.
  EXPECT_FALSE(rep.row("checkpoint:every=1:reentrant")->peak_low.has_value());
  attachMeasured(rep, {MeasuredRung{"checkpoint:every=1", "hand", 0, 600 * u, -1, std::nullopt},
                       MeasuredRung{"checkpoint:every=2", "hand", 0, 800 * u, -1, std::nullopt}});
  EXPECT_EQ(rep.row("checkpoint:every=1")->measured_in_range, std::optional<bool>(true));
  EXPECT_EQ(rep.row("checkpoint:every=2")->measured_in_range, std::optional<bool>(false));
  const std::string json = ladderJson(rep, "hand.sawtooth");
  EXPECT_NE(json.find("\"peak_range\": {"), std::string::npos) << json;
  EXPECT_NE(json.find("\"measured_in_range\": true"), std::string::npos);
  // The app's table (and its CSV) shows the range, whether the measurement lies in it, and why.
  const Table table = ladderTable(rep);
  auto column = [&](std::string_view title) {
    for (size_t c = 0; c < table.columns.size(); ++c)
      if (table.columns[c].name == title) return c;
    ADD_FAILURE() << "no column " << title;
    return size_t{0};
  };
  size_t at = 0;
  while (at < rep.rows.size() && rep.rows[at].id != "checkpoint:every=1") ++at;
  ASSERT_LT(at, table.rows.size());
  const std::vector<Cell>& row = table.rows[at];
  ASSERT_TRUE(row[column("lowest possible peak")].number() && row[column("highest possible peak")].number());
  EXPECT_EQ(*row[column("lowest possible peak")].number(), static_cast<double>(551 * u));
  EXPECT_EQ(*row[column("highest possible peak")].number(), static_cast<double>(651 * u));
  ASSERT_TRUE(row[column("measured within range")].text());
  EXPECT_EQ(*row[column("measured within range")].text(), "yes");
  ASSERT_TRUE(row[column("note")].text());
  EXPECT_NE(row[column("note")].text()->find(nr->range_why), std::string::npos);
}

// bf16: the high end keeps 4-byte what the stacks do not name (x here), and its gradient; what a
// float32-list op made (n) is 4-byte at both ends, what nn.Linear's code made 2-byte at both.
TEST(Ladder, Bf16RangeKeepsWhatTheStacksDoNotNameFp32AtItsHighEnd) {
  // x of its own size: not the layer norm's input, which would keep a 4-byte copy of x at the low end.
  const LadderInput with = inputOf(stepWithAutocastOps(true, "", 120));
  const LadderReport with_report = predictLadder(with);  // the row points into it
  const LadderRow* bf16 = with_report.row("bf16");
  ASSERT_TRUE(bf16->peak_low && bf16->peak_high);
  EXPECT_EQ(*bf16->peak_low, bf16->peak_allocated_blocks);
  EXPECT_GT(*bf16->peak_high, bf16->peak_allocated_blocks);
  // Without stacks the ops cannot be told at all: said, and no range pretends to bound it.
  EXPECT_FALSE(predictLadder(inputOf(stepWithAutocastOps(false))).row("bf16")->peak_high.has_value());

  StepBuilder b;
  b.before(50, Category::Parameter);
  b.phase("forward");
  const uint64_t y =
      b.a(100, Category::Activation, "forward", "/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py");
  b.phase("backward");
  b.a(20, Category::Gradient);
  b.f(y);
  const LadderInput lin = inputOf(b.trace());
  ASSERT_EQ(lin.blocks[1].autocast, AutocastOp::LowPrecision);
  // Nothing unnamed: both ends agree, so the row has no range.
  EXPECT_FALSE(predictLadder(lin).row("bf16")->peak_high.has_value());
}

// A smaller micro-batch: the largest backward block of a size forward never made may be a workspace
// that shrinks with the rows, by up to (1 − 1/k) of it.
TEST(Ladder, SmallerBatchRangeIsALibraryWorkspaceShrinking) {
  StepBuilder b;
  b.before(10, Category::Parameter);
  b.phase("forward");
  const uint64_t x = b.a(100, Category::Activation);
  b.phase("backward");
  const uint64_t w = b.a(30, Category::Temporary);
  b.f(w);
  b.a(10, Category::Gradient);
  b.f(x);
  const LadderReport report = predictLadder(inputOf(b.trace()));  // the row points into it
  const LadderRow* half = report.row("batch:1/2");
  ASSERT_TRUE(half->peak_low && half->peak_high);
  EXPECT_EQ(*half->peak_high, half->peak_allocated_blocks);
  EXPECT_EQ(*half->peak_low, half->peak_allocated_blocks - 15 * u);
}

// ZeRO over 2 ranks: PyTorch's ZeroRedundancyOptimizer gives whole parameters to ranks, so with one
// 50-unit parameter one rank holds all 80 units of optimizer state and the other none, not 40 each.
TEST(Ladder, ZeroRangeIsThePartitionByWholeParameters) {
  const LadderReport rep = predictLadder(inputOf(chainOfBlocks(true)));
  for (const char* id : {"zero1:N=2", "zero2:N=2"}) {
    const LadderRow* r = rep.row(id);
    ASSERT_TRUE(r->peak_low && r->peak_high) << id;
    EXPECT_EQ(*r->peak_low, r->peak_allocated_blocks - 40 * u) << id;
    EXPECT_EQ(*r->peak_high, r->peak_allocated_blocks + 40 * u) << id;
    EXPECT_NE(r->range_why.find("whole parameters"), std::string::npos) << r->range_why;
  }
  EXPECT_FALSE(rep.row("fsdp:N=2")->peak_low.has_value());
}

TEST(LadderMeasured, WorkloadRunsNameTheirRungs) {
  sawtooth::Run r;
  r.workload = "checkpointing";
  r.config = {{"checkpoint_every", "2"}, {"checkpoint_form", "non-reentrant"}};
  EXPECT_EQ(rungOfRun(r, ""), "checkpoint:every=2");
  r.config = {{"checkpoint_every", "4"}};  // recordings from before both forms: reentrant
  EXPECT_EQ(rungOfRun(r, ""), "checkpoint:every=4:reentrant");
  r.config = {{"checkpoint_every", "never"}};
  EXPECT_EQ(rungOfRun(r, ""), "");
  r.workload = "accumulation";
  r.config = {{"k", "8"}};
  EXPECT_EQ(rungOfRun(r, ""), "accumulate:k=8");
  r.workload = "precision";
  r.config = {{"mode", "bf16"}};
  EXPECT_EQ(rungOfRun(r, ""), "bf16");
  r.workload = "data-parallel";
  r.config = {{"variant", "sharded"}, {"world_size", "2"}};
  EXPECT_EQ(rungOfRun(r, ""), "zero1:N=2");
  EXPECT_EQ(rungOfRun(r, "compile"), "compile");
}

// The H200 recordings of the built-in workloads: predictions from the baseline run against the
// measured rungs in the same file.
LadderReport sampleLadder(const std::string& name, const std::string& run = "") {
  const std::string path = std::string(SAWTOOTH_SAMPLES) + "/" + name;
  auto t = loadTrace(path);
  EXPECT_TRUE(t.ok()) << path;
  if (!t.ok()) return {};
  auto in = ladderInput(*t, LadderSelection{run, std::nullopt, {}});
  EXPECT_TRUE(in.ok()) << (in.ok() ? "" : in.error().message);
  if (!in.ok()) return {};
  LadderReport rep = predictLadder(*in);
  attachMeasured(rep, measuredRungs(*in, *t, name, true));
  return rep;
}

double peakError(const LadderReport& rep, const std::string& id) {
  const LadderRow* r = rep.row(id);
  EXPECT_NE(r, nullptr) << id;
  if (!r) return 1;
  EXPECT_TRUE(r->peak_error.has_value()) << id << " has no measured run";
  return r->peak_error.value_or(1);
}

TEST(LadderOnH200, CheckpointingPredictsTheMeasuredPeaksAndTimes) {
  const LadderReport rep = sampleLadder("checkpointing.sawtooth");
  for (const char* id : {"checkpoint:every=4:reentrant", "checkpoint:every=2:reentrant", "checkpoint:every=1:reentrant"}) {
    EXPECT_LE(std::abs(peakError(rep, id)), 0.01) << id;
    ASSERT_TRUE(rep.row(id)->time_error.has_value()) << id;
    EXPECT_LE(std::abs(*rep.row(id)->time_error), 0.05) << id;
  }
}

TEST(LadderOnH200, AccumulationPredictsTheMeasuredPeaks) {
  const LadderReport rep = sampleLadder("accumulation.sawtooth");
  // Within 0.2 %: the 1 MiB block the first forward makes and never frees (a cuBLAS workspace) is
  // kept whole, as it is in the k = 2 run; halving it had made this row exact by a coincidence.
  EXPECT_LE(std::abs(peakError(rep, "accumulate:k=2")), 0.002);
  // Each bias gradient's sum over the rows stages its partial sums in a backward buffer sized by
  // the rows up to the H200's cap (132 MiB from 8192 rows, 128 MiB at 4096, 64 MiB at 2048:
  // reduction_staging.h). Kept whole, k = 4 was +0.7 % and k = 8 +13.4 %.
  EXPECT_LE(std::abs(peakError(rep, "accumulate:k=4")), 0.002);
  EXPECT_LE(std::abs(peakError(rep, "accumulate:k=8")), 0.003);
}

// From one H200's anatomy recording (the data-parallel workload's model at its size: 6 × 2048,
// batch 256), ZeRO-1 over two H200s: the workload's sharded run measured 2.12 ms a step there
// (bench/results/h200x2-2026-12-04-ladder-ddp.md). The link's figure comes from that run's own
// all-reduce, so this checks how compute and collectives are put together, not the link.
TEST(LadderOnH200, OneDeviceZero1StepTimeMeetsTheTwoGpuMeasurement) {
  const LadderReport rep = sampleLadder("anatomy.sawtooth");
  const LadderRow* z1 = rep.row("zero1:N=2");
  ASSERT_NE(z1, nullptr);
  ASSERT_TRUE(z1->step_ms.has_value()) << z1->time_basis;
  EXPECT_LE(std::abs(*z1->step_ms / 2.12 - 1), 0.10) << *z1->step_ms;
}

TEST(LadderOnH200, Bf16PredictsTheMeasuredPeakWithinFivePercent) {
  const LadderReport rep = sampleLadder("precision.sawtooth");
  EXPECT_LE(std::abs(peakError(rep, "bf16")), 0.05);
  EXPECT_LE(std::abs(peakError(rep, "fp16")), 0.05);
  EXPECT_EQ(rep.diagnosis.verdict, "compute-bound");
}

// Every open recording is a candidate in the app: the precision workload's bf16 run had been put
// beside the anatomy recording's bf16 row (another model: a −47 % "error"). With the same program
// only, another workload's runs and another size of the same workload are left out, and a second
// copy of the same recording still measures its rungs.
TEST(LadderMeasured, OnlyTheSameProgramsRunsWhenEveryOpenRecordingIsACandidate) {
  const std::string samples = SAWTOOTH_SAMPLES;
  auto anatomy = loadTrace(samples + "/anatomy.sawtooth");
  auto precision = loadTrace(samples + "/precision.sawtooth");
  auto checkpointing = loadTrace(samples + "/checkpointing.sawtooth");
  ASSERT_TRUE(anatomy.ok() && precision.ok() && checkpointing.ok());
  auto base = ladderInput(*anatomy);
  ASSERT_TRUE(base.ok());
  EXPECT_FALSE(measuredRungs(*base, *precision, "precision.sawtooth", false).empty());  // as asked: taken
  EXPECT_TRUE(measuredRungs(*base, *precision, "precision.sawtooth", false, "", true).empty());
  EXPECT_EQ(otherProgram(*base, precision->runs.front()), "it records precision, not anatomy");

  auto store_all = ladderInput(*checkpointing);
  ASSERT_TRUE(store_all.ok());
  // The same recording opened twice: its rungs are the same program's.
  EXPECT_EQ(measuredRungs(*store_all, *checkpointing, "copy.sawtooth", false, "", true).size(), 3u);
  Trace smaller = *checkpointing;
  for (sawtooth::Run& r : smaller.runs)
    for (auto& [k, v] : r.config)
      if (k == "width") v = "256";
  EXPECT_TRUE(measuredRungs(*store_all, smaller, "small.sawtooth", false, "", true).empty());
  EXPECT_EQ(otherProgram(*store_all, smaller.runs.front()), "its width is 256, not 1024");

  // The data-parallel workload trains the anatomy model; how long a run ran does not matter.
  sawtooth::Run sharded;
  sharded.workload = "data-parallel";
  sharded.config = {{"variant", "sharded"}, {"world_size", "2"}, {"rank", "0"}, {"steps", "3"}, {"timed_steps", "20"}};
  for (const auto& [k, v] : base->config)
    if (k == "layers" || k == "width" || k == "batch" || k == "lr") sharded.config.emplace_back(k, v);
  EXPECT_EQ(otherProgram(*base, sharded), "");

  // A recorded program: the same command in the same folder.
  sawtooth::Run run;
  run.workload = "program";
  run.config = {{"command", "python train.py"}, {"cwd", "/home/me"}, {"pid", "7"}};
  LadderInput program;
  program.workload = "program";
  program.config = {{"command", "python train.py"}, {"cwd", "/home/me"}, {"pid", "9"}};
  EXPECT_EQ(otherProgram(program, run), "");
  run.config[0].second = "python other.py";
  EXPECT_EQ(otherProgram(program, run), "its command is 'python other.py', not 'python train.py'");
  run.config[0].second = "python train.py";
  run.config[1].second = "/elsewhere";
  EXPECT_NE(otherProgram(program, run).find("cwd"), std::string::npos);
  program.workload.clear();  // a snapshot's: no program to compare with
  EXPECT_FALSE(otherProgram(program, run).empty());
}

}  // namespace
}  // namespace sawtooth
