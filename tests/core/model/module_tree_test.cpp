#include <gtest/gtest.h>

#include "core/model/module_tree.h"
#include "core/model/trace_merge.h"
#include "tests/core/module_trace.h"

namespace sawtooth {
namespace {

ModuleTree gpt() {
  ModuleTree t;
  t.modules = {Module{"GPT2LMHeadModel", "GPT2LMHeadModel", kNoModule, 0}, Module{"transformer", "GPT2Model", 0, 0},
               Module{"transformer.h", "ModuleList", 1, 0}, Module{"transformer.h.0", "GPT2Block", 2, 0},
               Module{"transformer.h.0.attn", "GPT2Attention", 3, 4096}, Module{"CrossEntropyLoss", "CrossEntropyLoss", kNoModule, 0}};
  return t;
}

TEST(ModuleTree, NamesDepthsAndChildren) {
  const ModuleTree t = gpt();
  EXPECT_EQ(t.fullName(0), "GPT2LMHeadModel");
  EXPECT_EQ(t.fullName(4), "GPT2LMHeadModel.transformer.h.0.attn");
  EXPECT_EQ(t.fullName(5), "CrossEntropyLoss");
  EXPECT_EQ(t.shortName(1), "transformer");
  EXPECT_EQ(t.shortName(3), "0");
  EXPECT_EQ(t.shortName(4), "attn");
  EXPECT_EQ(t.depth(0), 0);
  EXPECT_EQ(t.depth(4), 4);
  EXPECT_EQ(t.root(4), 0u);
  EXPECT_EQ(t.children()[2], std::vector<uint32_t>{3});
  EXPECT_TRUE(t.children()[5].empty());
  EXPECT_EQ(t.find("GPT2LMHeadModel.transformer.h.0"), 3u);
  EXPECT_EQ(t.find("transformer.h.0"), kNoModule);  // full names start at the root
  EXPECT_TRUE(checkModuleTree(t.modules).empty());
}

TEST(ModuleTree, AParentMustBeAnEarlierModule) {
  ModuleTree t = gpt();
  t.modules[3].parent = 17;
  EXPECT_EQ(checkModuleTree(t.modules),
            "module 3 ('transformer.h.0') names parent 17, which is not in the tree (6 modules)");
  t.modules[3].parent = 4;  // a cycle 3 -> 4 -> 3 would start this way
  EXPECT_NE(checkModuleTree(t.modules).find("does not come before it"), std::string::npos);
  t.modules[3].parent = 3;
  EXPECT_FALSE(checkModuleTree(t.modules).empty());
}

TEST(EventStore, ModuleColumnsExistOnlyOnceAnEventHasOne) {
  EventStore store;
  store.push(Event{});
  EXPECT_FALSE(store.hasModules());
  EXPECT_EQ(store.module(0), kNoModule);
  const size_t without = store.bytesResident();
  Event e;
  e.module = 3;
  e.pass = Pass::Backward;
  store.push(e);
  ASSERT_TRUE(store.hasModules());
  EXPECT_EQ(store.module(0), kNoModule);
  EXPECT_EQ(store.pass(0), Pass::None);
  EXPECT_EQ(store.module(1), 3u);
  EXPECT_EQ(store.pass(1), Pass::Backward);
  EXPECT_EQ(store.at(1).module, 3u);
  EXPECT_GT(store.bytesResident(), without);
  store.push(Event{});
  EXPECT_EQ(store.module(2), kNoModule);
  store.setModule(2, 1, Pass::Forward);
  EXPECT_EQ(store.module(2), 1u);
}

TEST(EventStore, SetKeepsModulesOnlyWhenEnabled) {
  EventStore store;
  store.enableModules();
  store.resize(2);
  Event e;
  e.module = 5;
  e.pass = Pass::Recompute;
  store.set(1, e);
  EXPECT_EQ(store.module(0), kNoModule);
  EXPECT_EQ(store.module(1), 5u);
  EXPECT_EQ(store.pass(1), Pass::Recompute);
}

TEST(PassNames, RoundTrip) {
  for (int i = 0; i < kPassCount; ++i) EXPECT_EQ(parsePass(name(static_cast<Pass>(i))), static_cast<Pass>(i));
  EXPECT_EQ(name(Pass::Recompute), "recompute");
  EXPECT_FALSE(parsePass("sideways"));
}

// Two ranks of one model: their modules are one tree, each event keeps its module.
TEST(TraceMerge, RanksShareTheirModules) {
  const Trace a = test::moduleTrace();
  Trace b = test::moduleTrace();
  b.modules.modules.push_back(Module{"extra", "Linear", 0, 8});
  std::vector<MergeInput> inputs(2);
  inputs[0].trace = &a;
  inputs[1].trace = &b;
  inputs[1].device_offset = 1;
  auto merged = mergeTraces(inputs);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  ASSERT_EQ(merged->modules.size(), 5u);
  EXPECT_EQ(merged->modules.fullName(4), "Net.extra");
  EXPECT_EQ(merged->modules.calls.size(), 16u);
  for (size_t i = 0; i < merged->events.size(); ++i) {
    const uint32_t m = merged->events.module(i);
    EXPECT_TRUE(m == kNoModule || m < 4u);
  }
  size_t in_zero = 0;
  for (size_t i = 0; i < merged->events.size(); ++i) in_zero += merged->events.module(i) == 1 ? 1 : 0;
  EXPECT_EQ(in_zero, 16u);  // "0"'s eight events on each rank
}

}  // namespace
}  // namespace sawtooth
