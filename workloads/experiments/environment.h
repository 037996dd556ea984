#pragma once
// What the recorder reports about where it ran: library versions and the device. Torch-free header.

#include <map>
#include <string>

namespace sawtooth::workloads {

bool cudaAvailable();
int cudaDeviceCount();
// tool, torch, CUDA runtime and driver, cuDNN, device name and memory, for the file's meta table.
std::map<std::string, std::string> environmentInfo(bool cuda, int device);
// Allocator statistics right now (after an OOM): allocated, reserved, device free/total.
std::map<std::string, std::string> allocatorState(int device);
bool isOutOfMemory(const std::exception& e);

}  // namespace sawtooth::workloads
