#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "io/file_bytes.h"

namespace sawtooth::test {

inline std::string dataPath(const std::string& name) { return std::string(SAWTOOTH_TEST_DATA) + "/" + name; }

// The numbers the independent Python reader (tests/tools/independent_reader.py) computed.
inline nlohmann::json expectedInfo(const std::string& fixture) {
  auto bytes = readFileBytes(dataPath("expected_info.json"));
  return nlohmann::json::parse(bytes.value()).at(fixture);
}

}  // namespace sawtooth::test
