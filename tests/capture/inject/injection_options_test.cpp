// The injected CUPTI library's reading of SAWTOOTH_OPTIONS (it has no JSON library).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "capture/inject/injection_options.h"

namespace sawtooth::inject {
namespace {

TEST(InjectionOptions, ReadsWhatTheRecorderWrites) {
  const std::string written = nlohmann::json{{"stacks", "python"}, {"sample_interval_ms", 200}, {"kernels", false}}.dump();
  const InjectionOptions o = parseInjectionOptions(written.c_str());
  EXPECT_EQ(o.sample_interval_ms, 200);
  EXPECT_FALSE(o.kernels);
  EXPECT_TRUE(parseInjectionOptions(R"({"kernels": true})").kernels);
}

TEST(InjectionOptions, KeepsTheDefaultsForWhatItDoesNotUnderstand) {
  for (const char* text : {"", "{}", "not json", R"({"sample_interval_ms": 1})", R"({"sample_interval_ms": 999999})",
                           R"({"sample_interval_ms": "x", "kernels": 0})", R"({"kernels"})"}) {
    const InjectionOptions o = parseInjectionOptions(text);
    EXPECT_EQ(o.sample_interval_ms, 50) << text;
    EXPECT_TRUE(o.kernels) << text;
  }
  EXPECT_TRUE(parseInjectionOptions(nullptr).kernels);
}

}  // namespace
}  // namespace sawtooth::inject
