#include "core/io/output_claim.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include <fmt/format.h>

namespace sawtooth {
namespace {

Error systemError(const std::string& path, const char* what) {
  return Error{fmt::format("{}: cannot {}: {}", path, what, std::strerror(errno))};
}

// What is at path now, as a refusal, or nothing when a file may be written there.
std::optional<Error> refusal(const std::string& path, const struct stat& st, OutputClaim::Existing existing) {
  if (S_ISDIR(st.st_mode))
    return Error{fmt::format("{}: is a directory; give the path of a file to write (a directory is never replaced)",
                             path)};
  if (S_ISLNK(st.st_mode))
    return Error{fmt::format("{}: is a symbolic link; give the path of the file itself", path)};
  if (!S_ISREG(st.st_mode)) return Error{fmt::format("{}: exists and is not a regular file; it is never replaced", path)};
  if (existing == OutputClaim::Existing::Refuse)
    return Error{fmt::format("{}: already exists; pass --force to replace it, or choose another path", path)};
  return std::nullopt;
}

}  // namespace

Result<OutputClaim> OutputClaim::claim(const std::string& path, Existing existing) {
  if (path.empty()) return Error{"no output path given"};
  int fd = -1;
  bool created = false;
  for (int attempt = 0; attempt < 2 && fd < 0; ++attempt) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
      if (auto why = refusal(path, st, existing)) return *why;
      fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0 && errno != ENOENT) return systemError(path, "open it");
      continue;  // ENOENT: removed meanwhile, create it
    }
    if (errno != ENOENT) return systemError(path, "look at it");
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) created = true;
    else if (errno != EEXIST) return systemError(path, "create it");
    // EEXIST: another process created it first; look again.
  }
  if (fd < 0) return Error{fmt::format("{}: appeared and disappeared while being claimed; try again", path)};

  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return Error{fmt::format("{}: is being written by another recording that is still running; stop it or choose "
                               "another path",
                               path)};
    errno = err;
    return systemError(path, "lock it");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{fmt::format("{}: is not a regular file; it is never replaced", path)};
  }
  return OutputClaim(fd, path, created);
}

Status OutputClaim::empty() {
  if (fd_ < 0) return Error{fmt::format("{}: not claimed", path_)};
  if (::ftruncate(fd_, 0) != 0) return systemError(path_, "empty it");
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string side = path_ + suffix;
    if (::unlink(side.c_str()) != 0 && errno != ENOENT) return systemError(side, "remove the stale SQLite file");
  }
  return Ok{};
}

void OutputClaim::abandon() {
  struct stat st {};
  if (fd_ >= 0 && created_ && ::fstat(fd_, &st) == 0 && st.st_size == 0) ::unlink(path_.c_str());
  release();
}

OutputClaim::OutputClaim(OutputClaim&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), created_(other.created_) {}

OutputClaim& OutputClaim::operator=(OutputClaim&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    created_ = other.created_;
  }
  return *this;
}

OutputClaim::~OutputClaim() { release(); }

void OutputClaim::release() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the open file drops the lock
  fd_ = -1;
}

Status checkOutputPath(const std::string& path, OutputClaim::Existing existing) {
  if (path.empty()) return Error{"no output path given"};
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Ok{};
    return systemError(path, "look at it");
  }
  if (auto why = refusal(path, st, existing)) return *why;
  if (isBeingWritten(path))
    return Error{fmt::format("{}: is being written by another recording that is still running; stop it or choose "
                             "another path",
                             path)};
  return Ok{};
}

bool isBeingWritten(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool busy = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return busy;
}

}  // namespace sawtooth
