#pragma once
// The analysis of a fixture or sample trace, for the tests of what the views show.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/analysis/trace_analysis.h"
#include "core/io/trace_loader.h"

namespace sawtooth::test {

inline std::shared_ptr<const TraceAnalysis> analyse(Trace t) {
  return std::make_shared<const TraceAnalysis>(std::make_shared<const Trace>(std::move(t)));
}

// Fails the test (and returns the analysis of an empty trace) when the file does not load.
inline std::shared_ptr<const TraceAnalysis> loadAnalysis(const std::string& path) {
  auto t = loadTrace(path);
  EXPECT_TRUE(t.ok()) << path << ": " << (t.ok() ? "" : t.error().message);
  return analyse(t.ok() ? std::move(*t) : Trace{});
}

inline std::string samplePath(const std::string& name) { return std::string(SAWTOOTH_SAMPLES) + "/" + name; }

}  // namespace sawtooth::test
