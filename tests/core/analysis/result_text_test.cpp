// How results are worded: slow modes read "N× slower", small throughputs keep their digits.

#include <gtest/gtest.h>

#include "core/analysis/result_text.h"
#include "core/analysis/table.h"

namespace sawtooth {
namespace {

TEST(ResultText, SpeedupsSayFasterOrSlower) {
  EXPECT_EQ(speedupText(1.7), "1.7× faster");
  EXPECT_EQ(speedupText(0.1), "10× slower");  // not "0.1× faster" (a CPU's bf16 against TF32)
  EXPECT_EQ(speedupText(0.05), "20× slower");
  EXPECT_EQ(speedupText(8.4), "8.4× faster");
  EXPECT_EQ(speedupText(12.4), "12× faster");
  EXPECT_EQ(speedupText(1.05), "1.05× faster");
  EXPECT_EQ(speedupText(0.7), "1.4× slower");
  EXPECT_EQ(speedupText(1.01), "as fast");
  EXPECT_EQ(speedupText(0), "not comparable");
}

TEST(ResultText, FlopRatesKeepThreeDigits) {
  EXPECT_EQ(flopRateText(1.2e10), "12.0 GFLOP/s");  // a CPU: not "0.0 TFLOP/s"
  EXPECT_EQ(flopRateText(456.7e12), "457 TFLOP/s");
  EXPECT_EQ(flopRateText(3.21e12), "3.21 TFLOP/s");
  EXPECT_EQ(flopRateText(5e5), "500 kFLOP/s");
}

TEST(ResultText, SignedPercents) {
  EXPECT_EQ(signedPercentText(-0.53), "−53 %");
  EXPECT_EQ(signedPercentText(0.344), "+34 %");
  EXPECT_EQ(signedPercentText(0.004), "±0 %");
}

TEST(Table, CellsReadAsTextAndWriteAsNumbers) {
  const TableColumn size{"size", Unit::Bytes}, time{"t", Unit::Nanoseconds}, speed{"vs fp32", Unit::Speedup},
      steps{"skipped", Unit::Number, "steps"};
  EXPECT_EQ(csvHeader(size), "size (bytes)");
  EXPECT_EQ(csvHeader(steps), "skipped (steps)");
  EXPECT_EQ(csvHeader(TableColumn{"mode", Unit::Text}), "mode");
  EXPECT_EQ(displayText(Cell(474820.0), Unit::Nanoseconds), "474.82 µs");
  EXPECT_EQ(csvValue(Cell(474820.0), time.unit), "474820");  // the raw number, not "474.82 µs"
  EXPECT_EQ(displayText(Cell(572522496.0), size.unit), "572.5 MB");
  EXPECT_EQ(csvValue(Cell(572522496.0), size.unit), "572522496");
  EXPECT_EQ(displayText(Cell(0.1), speed.unit), "10× slower");
  EXPECT_EQ(csvValue(Cell(0.125), speed.unit), "0.125");
  EXPECT_EQ(displayText(Cell(0.25), Unit::Ratio), "+25 %");
  EXPECT_EQ(displayText(Cell(2.1e10), Unit::FlopPerSecond), "21.0 GFLOP/s");
  EXPECT_EQ(csvValue(Cell(), size.unit), "");
  EXPECT_EQ(displayText(Cell("fp32"), Unit::Text), "fp32");
}

}  // namespace
}  // namespace sawtooth
