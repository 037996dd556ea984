#pragma once
// How results are worded wherever they are shown (charts, tables, the ladder), so that a slow mode
// reads "10× slower" rather than "0.1× faster" and a CPU's throughput is not "0.0 TFLOP/s".

#include <string>

namespace sawtooth {

// `speedup` = reference time / this time: "1.7× faster", "10× slower", "as fast" (within 2 %).
std::string speedupText(double speedup);
// FLOP/s in the unit that suits it, three significant digits: "12.3 TFLOP/s", "45.6 GFLOP/s".
std::string flopRateText(double flop_per_s);
// "+34 %", "−53 %" (a real minus sign), "±0 %" under half a percent: a change as a fraction.
std::string signedPercentText(double change);

}  // namespace sawtooth
