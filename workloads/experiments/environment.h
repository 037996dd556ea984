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
// On the CPU, PyTorch's intra-op threads: one fewer than the cores this process may use (at least
// one), unless OMP_NUM_THREADS says otherwise. With a thread per core, the capture's writer, the app
// that watches the recording or any other process preempts one of them and every parallel op waits
// for it at its barrier: on a loaded 2-core machine small CPU steps took 10 to 100 times longer
// (20 ms to 1.4 s for the same pass) whichever variant ran, enough to show noise as a speed-up.
// Returns the thread count in use (for the meta's cpu_threads); a no-op on the GPU.
int leaveACoreToTheCapture(bool cuda);

}  // namespace sawtooth::workloads
