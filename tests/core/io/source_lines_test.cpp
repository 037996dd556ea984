#include "core/io/source_lines.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace sawtooth {
namespace {

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "sawtooth-source-lines-test";
  std::filesystem::create_directories(dir);
  return dir / name;
}

TEST(SourceLines, ReadsALineOfAPythonFile) {
  const auto py = scratch("act.py");
  std::ofstream(py) << "import torch\r\ndef f(x):\n    return torch.pow(x, 3)\n";
  SourceLines lines;
  EXPECT_EQ(lines.line(py.string(), 1), "import torch");  // a Windows line ending dropped
  EXPECT_EQ(lines.line(py.string(), 3), "    return torch.pow(x, 3)");
  EXPECT_EQ(lines.line(py.string(), 0), std::nullopt);
  EXPECT_EQ(lines.line(py.string(), 4), std::nullopt);
  // Read once: a file changed afterwards is what it was (one prediction, one source).
  std::ofstream(py) << "changed\n";
  EXPECT_EQ(lines.line(py.string(), 1), "import torch");
}

// A recording names any path: only regular *.py files of a bounded size are read.
TEST(SourceLines, ReadsNothingButBoundedPythonFiles) {
  SourceLines lines;
  const auto txt = scratch("secret.txt");
  std::ofstream(txt) << "a line\n";
  EXPECT_EQ(lines.line(txt.string(), 1), std::nullopt);
  EXPECT_EQ(lines.line(scratch("missing.py").string(), 1), std::nullopt);
  const auto dir = scratch("package.py");
  std::filesystem::create_directories(dir);
  EXPECT_EQ(lines.line(dir.string(), 1), std::nullopt);
  const auto big = scratch("big.py");
  {
    std::ofstream out(big);
    out << "x = 1\n";
    out << std::string(kMaxSourceFileBytes, '#') << "\n";
  }
  EXPECT_EQ(lines.line(big.string(), 1), std::nullopt);
  EXPECT_EQ(lines.line("<frozen importlib._bootstrap>", 1), std::nullopt);
}

// However many files a recording names, what is kept stays bounded.
TEST(SourceLines, KeepsAtMostTheBoundInAll) {
  const std::string half(kMaxSourceFileBytes / 2, 'x');
  SourceLines lines;
  size_t read = 0;
  for (size_t i = 0; i < 2 * kMaxSourceBytes / half.size(); ++i) {
    const auto py = scratch("part" + std::to_string(i) + ".py");
    std::ofstream(py) << half << "\n";
    if (lines.line(py.string(), 1)) ++read;
    std::filesystem::remove(py);
  }
  EXPECT_EQ(read, kMaxSourceBytes / (half.size() + 1) + 1);
}

}  // namespace
}  // namespace sawtooth
