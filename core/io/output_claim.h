#pragma once
// Claiming the path a trace is written to. A recording never destroys what was there: a
// directory or a special file is never replaced, an existing file only when the caller says so,
// and a file that another process is writing never (an exclusive lock, held as long as the
// claim lives, tells every later writer at once). Nothing is changed until the writer starts
// (empty()): a recorder that stops before that leaves the path as it found it (abandon()).

#include <string>

#include "core/util/result.h"

namespace sawtooth {

class OutputClaim {
 public:
  enum class Existing { Refuse, Replace };

  // Errors name the path and what to do ("exists: pass --force to replace it", "is being written
  // by another recording", "is a directory").
  static Result<OutputClaim> claim(const std::string& path, Existing existing);

  OutputClaim(OutputClaim&& other) noexcept;
  OutputClaim& operator=(OutputClaim&& other) noexcept;
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;
  ~OutputClaim();  // releases the lock (the file stays)

  const std::string& path() const { return path_; }
  // The locked descriptor; a child process that inherits it keeps the lock for the recording.
  int fd() const { return fd_; }
  // Empties the file for a new database, and removes the side files an earlier database at the
  // path left (-wal, -shm, -journal): SQLite would replay them into the new one.
  Status empty();
  // Gives the path up unused: removes the file if this claim created it and it is still empty.
  void abandon();
  void release();

 private:
  OutputClaim(int fd, std::string path, bool created) : fd_(fd), path_(std::move(path)), created_(created) {}
  int fd_ = -1;
  std::string path_;
  bool created_ = false;
};

// Whether claim(path, existing) would be refused for what is at path now (without creating or
// locking anything): for a path written only at the end of a longer job.
Status checkOutputPath(const std::string& path, OutputClaim::Existing existing);

// True while some process holds a claim on path: a recording is writing it right now.
bool isBeingWritten(const std::string& path);

}  // namespace sawtooth
