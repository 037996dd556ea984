#include <gtest/gtest.h>

#include <random>

#include "core/analysis/zoom_window.h"

namespace sawtooth {
namespace {

void expectInvariants(const ZoomWindow& z) {
  EXPECT_GE(z.lo(), z.boundsLo());
  EXPECT_LE(z.hi(), z.boundsHi());
  EXPECT_LT(z.lo(), z.hi());
}

TEST(ZoomWindow, StartsAtTheBoundsAndResets) {
  ZoomWindow z;
  z.setBounds(10, 110, 5);
  EXPECT_EQ(z.lo(), 10);
  EXPECT_EQ(z.hi(), 110);
  EXPECT_FALSE(z.isZoomed());
  z.zoomTo(20, 30);
  EXPECT_TRUE(z.isZoomed());
  z.reset();
  EXPECT_FALSE(z.isZoomed());
}

TEST(ZoomWindow, ZoomToClampsAndKeepsTheMinimumWidth) {
  ZoomWindow z;
  z.setBounds(0, 100, 10);
  z.zoomTo(90, 200);
  EXPECT_EQ(z.lo(), 90);
  EXPECT_EQ(z.hi(), 100);
  z.zoomTo(50, 51);  // narrower than the minimum: widened around its centre
  EXPECT_DOUBLE_EQ(z.width(), 10);
  EXPECT_DOUBLE_EQ(z.lo(), 45.5);
  z.zoomTo(-50, 500);
  EXPECT_FALSE(z.isZoomed());
}

TEST(ZoomWindow, ZoomAroundKeepsTheAnchorInPlace) {
  ZoomWindow z;
  z.setBounds(0, 100, 1);
  z.zoomAround(25, 0.5);
  EXPECT_DOUBLE_EQ(z.lo(), 12.5);
  EXPECT_DOUBLE_EQ(z.hi(), 62.5);
  z.zoomAround(25, 4);  // out past the bounds: clamped to them
  EXPECT_FALSE(z.isZoomed());
}

TEST(ZoomWindow, PanStopsAtTheEdges) {
  ZoomWindow z;
  z.setBounds(0, 100, 1);
  z.zoomTo(40, 60);
  z.pan(1000);
  EXPECT_EQ(z.hi(), 100);
  EXPECT_DOUBLE_EQ(z.width(), 20);
  z.pan(-1000);
  EXPECT_EQ(z.lo(), 0);
}

TEST(ZoomWindow, RandomOperationsKeepTheInvariants) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-200, 300);
  ZoomWindow z;
  z.setBounds(0, 100, 0.5);
  for (int i = 0; i < 5000; ++i) {
    switch (rng() % 4) {
      case 0: z.zoomTo(u(rng), u(rng)); break;
      case 1: z.zoomAround(u(rng), std::uniform_real_distribution<double>(0.1, 3)(rng)); break;
      case 2: z.pan(u(rng)); break;
      default: z.reset();
    }
    expectInvariants(z);
    ASSERT_GE(z.width(), 0.5 - 1e-9);
  }
}

TEST(PixelMapping, RoundTrips) {
  PixelMapping m{100, 200, 50, 850};
  EXPECT_DOUBLE_EQ(m.toPixel(100), 50);
  EXPECT_DOUBLE_EQ(m.toPixel(200), 850);
  EXPECT_DOUBLE_EQ(m.toData(m.toPixel(137.5)), 137.5);
}

}  // namespace
}  // namespace sawtooth
