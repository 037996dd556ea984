#include "app/sawtooth-trace/device_option.h"

#include <charconv>

#include <fmt/format.h>

namespace sawtooth::cli {

std::optional<int16_t> findDevice(const Trace& trace, const std::string& text) {
  for (int16_t id : trace.deviceIds()) {
    if (text == trace.deviceName(id) || text == deviceLabel(id)) return id;
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size() && value == id) return id;
  }
  return std::nullopt;
}

std::string noDeviceMessage(const Trace& trace, const std::string& file, const std::string& text) {
  std::string known;
  for (int16_t id : trace.deviceIds()) known += (known.empty() ? "" : ", ") + trace.deviceName(id);
  return fmt::format("{}: no device '{}' (devices: {})", file, text, known.empty() ? "none" : known);
}

}  // namespace sawtooth::cli
