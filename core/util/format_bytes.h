#pragma once

#include <cstdint>
#include <string>

namespace sawtooth {

// "572.5 MB" — decimal units, as PyTorch's printed figures and the seed's plots use.
std::string formatBytes(int64_t bytes);
// "3.25 ms", "1.204 s", "850 ns".
std::string formatDuration(int64_t ns);

}  // namespace sawtooth
