// The checks every trace passes: anomalies are counted (formats that record no addresses raise
// none), sizes no device holds are refused, a negative starting balance is counted from 0.

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

Trace oneAlloc(int64_t size) {
  Trace trace;
  trace.deviceInfo(0);
  Event e;
  e.size = size;
  trace.events.push(e);
  return trace;
}

TEST(TraceChecks, ASizeNoDeviceHoldsIsRefusedWithTheLimitsName) {
  EXPECT_TRUE(checkTraceValues(oneAlloc(int64_t{1} << 50), int64_t{1} << 50, "raise it").ok());
  const Status st = checkTraceValues(oneAlloc(INT64_MAX), int64_t{1} << 50, "raise it with --limit size=N");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "event 0 (alloc on cuda:0): size 9223372036854775807 is more than any device holds (the size limit, "
            "1125899906842624 bytes; raise it with --limit size=N)");
}

TEST(TraceChecks, ANegativeBaselineIsCountedFromZeroAndSaidSo) {
  Trace trace = oneAlloc(4096);
  trace.deviceInfo(0).baseline_allocated = -4096;
  trace.deviceInfo(1).baseline_reserved = INT64_MIN;
  settleBaselines(trace);
  EXPECT_EQ(trace.device(0)->baseline_allocated, 0);
  EXPECT_EQ(trace.device(1)->baseline_reserved, 0);
  EXPECT_EQ(trace.meta["warnings"],
            "cuda:0: the bytes allocated before the trace began come out negative (-4.1 kB: what the file lists at its "
            "end is less than what the trace itself leaves allocated); counted from 0 instead; cuda:1: the bytes "
            "reserved before the trace began come out negative (-2^63: what the file lists at its end is less than "
            "what the trace itself leaves reserved); counted from 0 instead");
  Trace fine = oneAlloc(4096);
  fine.deviceInfo(0).baseline_allocated = 8192;
  settleBaselines(fine);
  EXPECT_EQ(fine.device(0)->baseline_allocated, 8192);
  EXPECT_EQ(fine.meta.count("warnings"), 0u);
}

}  // namespace
}  // namespace sawtooth
