#pragma once
// The --device option of the commands that look at one device: "cuda:0", "0", "cpu", or a
// device's label.

#include <cstdint>
#include <optional>
#include <string>

#include "core/model/trace.h"

namespace sawtooth::cli {

std::optional<int16_t> findDevice(const Trace& trace, const std::string& text);
// "FILE: no device 'X' (devices: cuda:0, cuda:1)".
std::string noDeviceMessage(const Trace& trace, const std::string& file, const std::string& text);

}  // namespace sawtooth::cli
