// The anomalies a trace is checked for: real ones are counted, formats that record no addresses
// raise none.

#include "core/model/trace_checks.h"

#include <gtest/gtest.h>

#include "core/io/trace_loader.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

size_t countOf(const Trace& t, AnomalyKind kind) {
  for (const Anomaly& a : t.anomalies)
    if (a.kind == kind) return a.count;
  return 0;
}

TEST(TraceChecks, AnAllocationAtALiveAddressIsCounted) {
  Trace t;
  for (Action action : {Action::Alloc, Action::Alloc, Action::FreeCompleted, Action::FreeCompleted}) {
    Event e;
    e.action = action;
    e.addr = 0x7f0000001000;
    e.size = 512;
    t.events.push(e);
  }
  ASSERT_TRUE(countAnomalies(t, 1 << 20));
  EXPECT_EQ(countOf(t, AnomalyKind::DoubleAlloc), 1u);
  EXPECT_EQ(countOf(t, AnomalyKind::DoubleFree), 1u);
}

TEST(TraceChecks, AddressZeroIsNoAddress) {
  // Memory timelines and JAX profiles record no addresses: every buffer is at 0x0.
  Trace t;
  for (Action action : {Action::Alloc, Action::Alloc, Action::FreeCompleted, Action::Alloc}) {
    Event e;
    e.action = action;
    e.addr = 0;
    e.size = 512;
    t.events.push(e);
  }
  ASSERT_TRUE(countAnomalies(t, 1 << 20));
  EXPECT_TRUE(t.anomalies.empty());
}

TEST(TraceChecks, ValidFilesWithoutAddressesRaiseNoWarnings) {
  for (const char* name : {"anatomy_cpu_memory_timeline.json.gz", "anatomy_cpu_memory_timeline.raw.json.gz",
                           "anatomy_adam_memory_timeline.raw.json", "jax_seed_cpu.prof", "jax_seed_h200.prof"}) {
    auto t = loadTrace(test::dataPath(name));
    ASSERT_TRUE(t.ok()) << name << ": " << t.error().message;
    EXPECT_EQ(countOf(*t, AnomalyKind::DoubleAlloc), 0u) << name;
    EXPECT_EQ(countOf(*t, AnomalyKind::FreeWithoutAlloc), 0u) << name;
    EXPECT_EQ(countOf(*t, AnomalyKind::DoubleFree), 0u) << name;
  }
}

}  // namespace
}  // namespace sawtooth
