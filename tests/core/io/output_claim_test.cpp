// Claiming the output path: what a recording may never destroy, and the lock that keeps two
// recordings off one file.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/io/native_format.h"
#include "core/io/output_claim.h"
#include "tests/core/test_data.h"

namespace sawtooth {
namespace {

namespace fs = std::filesystem;
using Existing = OutputClaim::Existing;

std::string freshPath(const std::string& name) {
  const std::string path = test::tempPath(name);
  fs::remove_all(path);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) fs::remove(path + suffix);
  return path;
}

void writeText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
std::string readText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(OutputClaim, AnExistingFileIsKeptUnlessReplacingIsAllowed) {
  const std::string path = freshPath("claim-existing.sawtooth");
  writeText(path, "precious");
  auto refused = OutputClaim::claim(path, Existing::Refuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("already exists; pass --force"), std::string::npos) << refused.error().message;
  EXPECT_EQ(readText(path), "precious");
  auto replaced = OutputClaim::claim(path, Existing::Replace);
  ASSERT_TRUE(replaced.ok()) << replaced.error().message;
  EXPECT_EQ(readText(path), "precious");  // nothing changes until the writer starts
  replaced->abandon();                    // a recorder that stops before: the file is as it was
  EXPECT_EQ(readText(path), "precious");
  auto again = OutputClaim::claim(path, Existing::Replace);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(again->empty().ok());
  EXPECT_EQ(fs::file_size(path), 0u);
}

TEST(OutputClaim, AFileTheClaimCreatedGoesWhenItIsAbandoned) {
  const std::string path = freshPath("claim-abandoned.sawtooth");
  auto c = OutputClaim::claim(path, Existing::Refuse);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(fs::exists(path));
  c->abandon();
  EXPECT_FALSE(fs::exists(path));
}

TEST(OutputClaim, ADirectoryIsNeverReplacedNorASpecialFileOrALink) {
  const std::string dir = freshPath("claim-dir.sawtooth");
  fs::create_directories(dir);
  for (Existing e : {Existing::Refuse, Existing::Replace}) {
    auto c = OutputClaim::claim(dir, e);
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("is a directory"), std::string::npos) << c.error().message;
  }
  EXPECT_TRUE(fs::is_directory(dir));
  const std::string fifo = freshPath("claim-fifo.sawtooth");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto f = OutputClaim::claim(fifo, Existing::Replace);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("not a regular file"), std::string::npos) << f.error().message;
  const std::string target = freshPath("claim-target.sawtooth"), link = freshPath("claim-link.sawtooth");
  writeText(target, "precious");
  fs::create_symlink(target, link);
  auto l = OutputClaim::claim(link, Existing::Replace);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("symbolic link"), std::string::npos) << l.error().message;
  EXPECT_EQ(readText(target), "precious");
}

TEST(OutputClaim, ASecondClaimFailsAtOnceWhileTheFirstIsHeld) {
  const std::string path = freshPath("claim-busy.sawtooth");
  auto first = OutputClaim::claim(path, Existing::Refuse);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(isBeingWritten(path));
  auto second = OutputClaim::claim(path, Existing::Replace);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("being written by another recording"), std::string::npos)
      << second.error().message;
  EXPECT_FALSE(checkOutputPath(path, Existing::Replace).ok());
  // A writer through the first claim works; the file is a recording in progress.
  auto writer = NativeWriter::create(std::move(*first), NativeWriterOptions{.recording = true});
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  EXPECT_TRUE(isBeingWritten(path));
  writer->reset();
  EXPECT_FALSE(isBeingWritten(path));
  auto again = OutputClaim::claim(path, Existing::Replace);
  EXPECT_TRUE(again.ok());
}

TEST(OutputClaim, StaleSqliteFilesOfAnEarlierDatabaseGo) {
  const std::string path = freshPath("claim-stale.sawtooth");
  writeText(path + "-wal", "an earlier database's log, which SQLite would replay");
  writeText(path + "-shm", "x");
  auto c = OutputClaim::claim(path, Existing::Refuse);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->empty().ok());
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_FALSE(fs::exists(path + "-shm"));
}

TEST(OutputClaim, ARecordingSaysItIsIncompleteUntilItFinishes) {
  const std::string path = freshPath("claim-complete.sawtooth");
  auto writer = NativeWriter::create(path, Existing::Refuse, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(writer.ok()) << writer.error().message;
  auto live = readNative(path);
  ASSERT_TRUE(live.ok()) << live.error().message;
  EXPECT_EQ(live->meta.at("complete"), "false");
  EXPECT_EQ(live->meta.at("incomplete_reason"), "killed");  // what stays if nobody can say more
  ASSERT_TRUE((*writer)->finish("interrupted", "stopped by SIGTERM at step 12").ok());
  writer->reset();
  auto done = readNative(path);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->meta.at("complete"), "false");
  EXPECT_EQ(done->meta.at("incomplete_reason"), "interrupted");
  EXPECT_EQ(done->meta.at("incomplete_detail"), "stopped by SIGTERM at step 12");
  EXPECT_FALSE(fs::exists(path + "-wal"));  // closed: self-contained

  auto clean = NativeWriter::create(path, Existing::Replace, NativeWriterOptions{.recording = true});
  ASSERT_TRUE(clean.ok());
  ASSERT_TRUE((*clean)->finish().ok());
  clean->reset();
  auto complete = readNative(path);
  ASSERT_TRUE(complete.ok());
  EXPECT_EQ(complete->meta.at("complete"), "true");
  EXPECT_EQ(complete->meta.count("incomplete_reason"), 0u);
  // Whoever saw the recorder die marks it (the supervisor): everything committed stays.
  ASSERT_TRUE(markIncomplete(path, "crashed", "signal 11").ok());
  auto marked = readNative(path);
  ASSERT_TRUE(marked.ok());
  EXPECT_EQ(marked->meta.at("incomplete_reason"), "crashed");
}

}  // namespace
}  // namespace sawtooth
