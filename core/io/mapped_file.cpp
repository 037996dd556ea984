#include "core/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace sawtooth {

Result<MappedFile> MappedFile::open(const std::string& path, bool populate) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("{}: cannot open ({})", path, std::strerror(errno))};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{fmt::format("{}: not a regular file", path)};
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return MappedFile(nullptr, 0);
  }
  // MAP_POPULATE maps the cached pages in one call instead of one fault per page.
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
  const int mmap_errno = errno;
  ::close(fd);
  if (data == MAP_FAILED) return Error{fmt::format("{}: cannot map ({})", path, std::strerror(mmap_errno))};
  ::madvise(data, size, MADV_SEQUENTIAL);
  return MappedFile(data, size);
}

void MappedFile::releaseBefore(size_t offset) const {
  constexpr size_t kMargin = size_t{4} << 20;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGE_SIZE));
  if (!data_ || offset < kMargin) return;
  const size_t end = std::min(offset - kMargin, size_) / page * page;
  if (end <= released_ + (size_t{16} << 20)) return;  // in steps of 16 MB or more
  ::madvise(static_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      released_(std::exchange(other.released_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    released_ = std::exchange(other.released_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace sawtooth
