#include <gtest/gtest.h>

#include "core/model/event_store.h"
#include "core/model/trace.h"

namespace sawtooth {
namespace {

TEST(EventStore, PushAndReadBackEveryColumn) {
  EventStore store;
  Event e;
  e.t_ns = 42;
  e.device = 3;
  e.source = Source::Driver;
  e.action = Action::SegmentMap;
  e.addr = 0xdeadbeef;
  e.size = 1 << 20;
  e.stream = 7;
  e.category = Category::Gradient;
  e.phase = 5;
  e.stack = 9;
  e.run = 2;
  store.push(e);
  store.push(Event{});
  ASSERT_EQ(store.size(), 2u);
  const Event back = store.at(0);
  EXPECT_EQ(back.t_ns, 42);
  EXPECT_EQ(back.device, 3);
  EXPECT_EQ(back.source, Source::Driver);
  EXPECT_EQ(back.action, Action::SegmentMap);
  EXPECT_EQ(back.addr, 0xdeadbeefu);
  EXPECT_EQ(back.size, 1 << 20);
  EXPECT_EQ(back.stream, 7u);
  EXPECT_EQ(back.category, Category::Gradient);
  EXPECT_EQ(back.phase, 5u);
  EXPECT_EQ(back.stack, 9u);
  EXPECT_EQ(back.run, 2);
  EXPECT_EQ(store.at(1).phase, kNoPhase);
}

TEST(EventStore, ResidentBytesPerEventStayAt49) {
  EventStore store;
  store.reserve(1000);
  for (int i = 0; i < 1000; ++i) store.push(Event{});
  EXPECT_LE(store.bytesResident() / store.size(), 49u);  // 32-bit device ids
}

TEST(Action, NamesRoundTrip) {
  for (int i = 0; i < kActionCount; ++i) EXPECT_EQ(parseAction(name(static_cast<Action>(i))), static_cast<Action>(i));
  for (int i = 0; i < kCategoryCount; ++i)
    EXPECT_EQ(parseCategory(name(static_cast<Category>(i))), static_cast<Category>(i));
  EXPECT_FALSE(parseAction("explode").has_value());
}

TEST(Trace, DeviceInfoKeepsDevicesSorted) {
  Trace t;
  t.deviceInfo(3);
  t.deviceInfo(-1);
  t.deviceInfo(0);
  ASSERT_EQ(t.devices.size(), 3u);
  EXPECT_EQ(t.devices[0].device, -1);
  EXPECT_EQ(t.devices[2].device, 3);
  EXPECT_EQ(deviceLabel(-1), "cpu");
  EXPECT_EQ(deviceLabel(2), "cuda:2");
}

}  // namespace
}  // namespace sawtooth
