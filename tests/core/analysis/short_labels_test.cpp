#include "core/analysis/short_labels.h"

#include <gtest/gtest.h>

namespace sawtooth {
namespace {

TEST(ShortLabels, AFunctionNameWithoutItsSignature) {
  EXPECT_EQ(functionName("void at::native::(anonymous namespace)::add_kernel<float, c10::complex<double>>("
                         "at::TensorIteratorBase&, c10::Scalar const&) const"),
            "at::native::add_kernel");
  EXPECT_EQ(functionName("at::native::empty_cuda(c10::ArrayRef<long>, std::optional<c10::ScalarType>)"),
            "at::native::empty_cuda");
  EXPECT_EQ(
      functionName("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned "
                   "long, CUstream_st*)::{lambda()#1}::operator()() const"),
      "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc");
  EXPECT_EQ(functionName("bool operator<(A const&, B const&)"), "operator<");
  EXPECT_EQ(functionName("forward"), "forward");
  EXPECT_EQ(functionName("<module>"), "<module>");
}

TEST(ShortLabels, ShortLabelsStayAsTheyAre) {
  EXPECT_EQ(compactSiteLabel("train.py:42 forward", 40), "train.py:42 forward");
  EXPECT_EQ(compactSiteLabel("(no stack)", 40), "(no stack)");
}

TEST(ShortLabels, LongSignaturesKeepWhatTellsThemApart) {
  const std::string sig =
      "Empty.cpp:31 at::native::(anonymous namespace)::empty_generic<float>(c10::ArrayRef<long>, c10::Allocator*, "
      "c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)";
  EXPECT_EQ(compactSiteLabel(sig, 40), "Empty.cpp:31 at::native::empty_generic");
  EXPECT_EQ(compactSiteLabel(sig, 30), "Empty.cpp:31 …empty_generic");
  // Folders of a long location go first.
  EXPECT_EQ(compactSiteLabel("models/encoders/very/deep/attention.py:210 forward", 30), "…attention.py:210 forward");
  // Whatever the input, never longer than asked (in characters, "…" counted as one).
  const std::string huge(500, 'x');
  const std::string cut = compactSiteLabel(huge, 24);
  EXPECT_EQ(cut, "…" + std::string(23, 'x'));
}

TEST(ShortLabels, ACommandWithoutItsFolders) {
  EXPECT_EQ(compactCommand("/home/me/venv/bin/python /home/me/project/train.py --epochs 1", 60),
            "python train.py --epochs 1");
  EXPECT_EQ(compactCommand("torchrun --nproc-per-node=2 --rdzv-endpoint=host:1/x train.py", 80),
            "torchrun --nproc-per-node=2 --rdzv-endpoint=host:1/x train.py");
  EXPECT_EQ(compactCommand("bf16", 40), "bf16");
  EXPECT_EQ(compactCommand("python train.py --a-very-long-option-name", 20), "python train.py --a…");
}

}  // namespace
}  // namespace sawtooth
