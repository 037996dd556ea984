#include "core/analysis/interconnect.h"

#include <gtest/gtest.h>

namespace sawtooth {
namespace {

TEST(Interconnect, HopperSxmIsNvlink4AsMeasuredOnTwoH200s) {
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA GH200 480GB"}) {
    const auto link = interconnectOf(name, 2);
    ASSERT_TRUE(link.has_value()) << name;
    EXPECT_EQ(link->link, "NVLink 4") << name;
    // The data-parallel workload's 100.7 MB all-reduce took 0.55 ms: the figure gives that back.
    EXPECT_NEAR(ringAllReduceMs(100663296, 2, link->bus_gb_per_s), 0.55, 1e-9) << name;
    EXPECT_NE(link->basis.find("measured"), std::string::npos);
  }
}

TEST(Interconnect, OthersAreScaledFromItAndSaySo) {
  const double nvlink4 = interconnectOf("NVIDIA H200", 2)->bus_gb_per_s;
  const auto pcie5 = interconnectOf("NVIDIA H100 PCIe", 2);
  ASSERT_TRUE(pcie5.has_value());
  EXPECT_EQ(pcie5->link, "PCIe 5.0");
  EXPECT_NEAR(pcie5->bus_gb_per_s, nvlink4 * 64 / 450, 1e-9);
  EXPECT_NE(pcie5->basis.find("not measured"), std::string::npos);
  const auto a100 = interconnectOf("NVIDIA A100-SXM4-80GB", 8);
  ASSERT_TRUE(a100.has_value());
  EXPECT_EQ(a100->link, "NVLink 3");
  EXPECT_NEAR(a100->bus_gb_per_s, nvlink4 * 300 / 450, 1e-9);
  EXPECT_EQ(interconnectOf("NVIDIA A100 80GB PCIe", 2)->link, "PCIe 4.0");
  EXPECT_EQ(interconnectOf("Tesla V100-PCIE-32GB", 2)->link, "PCIe 3.0");
  EXPECT_EQ(interconnectOf("Tesla V100-SXM2-32GB", 2)->link, "NVLink 2");
  EXPECT_EQ(interconnectOf("NVIDIA B200", 8)->link, "NVLink 5");
  // The NVL cards are NVLink-bridged in pairs only.
  EXPECT_EQ(interconnectOf("NVIDIA H100 NVL", 2)->link, "NVLink 4");
  EXPECT_EQ(interconnectOf("NVIDIA H100 NVL", 4)->link, "PCIe 5.0");
}

TEST(Interconnect, UnknownWhereNothingIsKnown) {
  EXPECT_FALSE(interconnectOf("cpu", 2).has_value());
  EXPECT_FALSE(interconnectOf("", 2).has_value());
  EXPECT_FALSE(interconnectOf("NVIDIA GeForce RTX 4090", 2).has_value());
  EXPECT_FALSE(interconnectOf("NVIDIA L4", 2).has_value());
  EXPECT_FALSE(interconnectOf("NVIDIA H200", 1).has_value());  // one device talks to no one
}

TEST(Interconnect, RingAllReduceMovesTwiceTheBytesTimesNMinusOneOverN) {
  EXPECT_DOUBLE_EQ(ringAllReduceMs(1e9, 2, 1), 1000.0);
  EXPECT_DOUBLE_EQ(ringAllReduceMs(1e9, 4, 1), 1500.0);
  EXPECT_EQ(ringAllReduceMs(1e9, 1, 1), 0.0);
  EXPECT_EQ(ringAllReduceMs(1e9, 2, 0), 0.0);
}

}  // namespace
}  // namespace sawtooth
