#pragma once
// The link data-parallel devices of a recorded kind talk over, as the ladder's sharding rows need it
// to put a time on their collectives from a one-device recording: the bus bandwidth a ring
// all-reduce reaches (NCCL's "busbw": a ring all-reduce of S bytes over N devices takes
// S · 2(N−1)/N / busbw), read from the device's name. Only one figure is measured (NVLink 4, on two
// H200s); the others are scaled from it by the links' nominal rates and say so.

#include <optional>
#include <string>
#include <string_view>

namespace sawtooth {

struct Interconnect {
  std::string link;           // "NVLink 4", "PCIe 5.0", ...
  double bus_gb_per_s = 0;    // a ring all-reduce's bus bandwidth, 1e9 bytes per second
  std::string basis;          // where the figure comes from, in words
};

// The link of `devices` devices named `device_name` (CUDA's name, "NVIDIA H100 80GB HBM3"); none
// for a CPU or a name this does not know.
std::optional<Interconnect> interconnectOf(std::string_view device_name, int devices);

// A ring all-reduce's time in ms: `bytes` over `devices` devices at `bus_gb_per_s`.
double ringAllReduceMs(double bytes, int devices, double bus_gb_per_s);

}  // namespace sawtooth
