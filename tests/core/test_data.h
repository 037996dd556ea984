#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/file_bytes.h"

namespace sawtooth::test {

inline std::string dataPath(const std::string& name) { return std::string(SAWTOOTH_TEST_DATA) + "/" + name; }

// A path for a file the test writes, in a folder the core tests share.
inline std::string tempPath(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "sawtooth-tests";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// The numbers the independent Python reader (tests/tools/independent_reader.py) computed.
inline nlohmann::json expectedInfo(const std::string& fixture) {
  auto bytes = readFileBytes(dataPath("expected_info.json"));
  return nlohmann::json::parse(bytes.value()).at(fixture);
}

}  // namespace sawtooth::test
