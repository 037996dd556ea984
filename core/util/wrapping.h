#pragma once
// Two's-complement arithmetic for running sums over untrusted input. A hostile or corrupt file can
// hold sizes whose total does not fit in 64 bits; the sum is then meaningless but still defined
// (signed overflow is undefined behaviour, and the fuzz preset's UBSan stops on it). For real
// traces these are the ordinary operations: no sum of real byte counts comes near 2^63.

#include <cstdint>

namespace sawtooth {

inline int64_t wrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrappingSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrappingMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

}  // namespace sawtooth
