// The staging buffer of a CUDA sum over rows (core/analysis/reduction_staging.h) against the
// buffers recorded on the H100 and H200: the accumulation workload's bias gradients (4096 outputs)
// at its four micro-batch sizes, and GPT-2 small's (768 to 3072 outputs over 8 × 512 rows).
#include <gtest/gtest.h>

#include "core/analysis/reduction_staging.h"

namespace sawtooth {
namespace {

TEST(ReductionStaging, TheBuffersRecordedOnTheH100AndH200) {
  for (const char* name : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const ReductionDevice d = reductionDeviceOf(name);
    ASSERT_EQ(d.multiprocessors, 132) << name;
    EXPECT_EQ(rowSumStagingBytes(16384, 4096, d), 138412032) << name;  // 132 MiB: the cap
    EXPECT_EQ(rowSumStagingBytes(8192, 4096, d), 138412032) << name;
    EXPECT_EQ(rowSumStagingBytes(4096, 4096, d), 134217728) << name;   // 128 MiB
    EXPECT_EQ(rowSumStagingBytes(2048, 4096, d), 67108864) << name;    // 64 MiB
    EXPECT_EQ(rowSumStagingBytes(4096, 3072, d), 100663296) << name;   // GPT-2's MLP bias
    EXPECT_EQ(rowSumStagingBytes(4096, 768, d), 25165824) << name;
  }
}

TEST(ReductionStaging, NoneForShortSumsOddWidthsOrUnknownDevices) {
  const ReductionDevice h100 = reductionDeviceOf("NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rowSumStagingBytes(512, 4096, h100), 0);    // 128 values a thread: one block per output
  EXPECT_EQ(rowSumStagingBytes(16384, 4098, h100), 0);  // not vectorised by 4: not modelled
  EXPECT_EQ(rowSumStagingBytes(16384, 4096, reductionDeviceOf("Some Future GPU")), 0);
  EXPECT_EQ(rowSumStagingBytes(int64_t{1} << 30, 4096, h100), 0);  // past 32-bit indexing
  EXPECT_EQ(reductionDeviceOf("NVIDIA H100 PCIe").multiprocessors, 114);
  EXPECT_EQ(reductionDeviceOf("NVIDIA A100-SXM4-80GB").multiprocessors, 108);
}

}  // namespace
}  // namespace sawtooth
