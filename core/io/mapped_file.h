#pragma once
// A whole file mapped read-only into memory. When the file is in the page cache this is almost
// free (no copy, no zero-filled buffer to fault in); the pickle reader parses it in place.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/util/result.h"

namespace sawtooth {

class MappedFile {
 public:
  // Errors read "PATH: reason".
  // `populate`: map the pages already in the page cache at once (one call, no fault per page);
  // false for a reader that streams through a file larger than it may hold (the resident pages
  // then stay near the part being read, releaseBefore() dropping those behind).
  static Result<MappedFile> open(const std::string& path, bool populate = true);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

  // Drops the pages before `offset` (less a margin) from this process's resident memory; they
  // stay in the page cache, and reading them again faults them back in. A reader that streams
  // through the file calls it as it goes, so the file does not count twice beside what it built.
  void releaseBefore(size_t offset) const;

 private:
  MappedFile(void* data, size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  size_t size_ = 0;
  mutable size_t released_ = 0;
};

}  // namespace sawtooth
