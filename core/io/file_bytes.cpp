#include "core/io/file_bytes.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <zlib.h>

namespace sawtooth {
namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

}  // namespace

Result<std::string> readFileBytes(const std::string& path, Progress* progress) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) return Error{fmt::format("{}: cannot open ({})", path, std::strerror(errno))};
  if (std::fseek(f.get(), 0, SEEK_END) != 0) return Error{fmt::format("{}: cannot seek ({})", path, std::strerror(errno))};
  long end = std::ftell(f.get());
  if (end < 0) return Error{fmt::format("{}: not a regular file", path)};
  std::fseek(f.get(), 0, SEEK_SET);
  const size_t size = static_cast<size_t>(end);
  std::string bytes;
  bytes.reserve(size + kParsePadding);
  bytes.resize(size);
  constexpr size_t kChunk = 8 << 20;
  size_t done = 0;
  while (done < size) {
    if (progress && progress->cancelled()) return Error{"cancelled"};
    size_t want = std::min(kChunk, size - done);
    size_t got = std::fread(bytes.data() + done, 1, want, f.get());
    if (got == 0) return Error{fmt::format("{}: read failed after {} of {} bytes ({})", path, done, size, std::strerror(errno))};
    done += got;
    if (progress) progress->report(done, size);
  }
  return bytes;
}

bool isGzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f && static_cast<uint8_t>(bytes[1]) == 0x8b;
}

Result<std::string> gunzip(const std::string& compressed, Progress* progress) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return Error{"zlib could not start"};
  std::string out;
  out.reserve(compressed.size() * 4 + kParsePadding);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(compressed.size(), UINT32_MAX));
  size_t fed = zs.avail_in;
  int rc = Z_OK;
  while (true) {
    if (out.capacity() < out.size() + (1 << 16) + kParsePadding) out.reserve(out.capacity() * 2 + (1 << 20));
    const size_t before = out.size();
    const size_t room = out.capacity() - kParsePadding - before;
    out.resize(before + room);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(room, UINT32_MAX));
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(before + (room - zs.avail_out));
    if (zs.avail_in == 0 && fed < compressed.size()) {
      size_t more = std::min<size_t>(compressed.size() - fed, UINT32_MAX);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + fed));
      zs.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    if (progress) {
      if (progress->cancelled()) {
        inflateEnd(&zs);
        return Error{"cancelled"};
      }
      progress->report(fed - zs.avail_in, compressed.size());
    }
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members (gzip a b > c) continue after the first one ends.
      if (zs.avail_in > 0 || fed < compressed.size()) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      inflateEnd(&zs);
      return Error{fmt::format("the gzip data ends early after {} compressed bytes (truncated?)", compressed.size())};
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string why = zs.msg ? zs.msg : "corrupt data";
      size_t at = fed - zs.avail_in;
      inflateEnd(&zs);
      return Error{fmt::format("the gzip data is corrupt near compressed byte {} ({})", at, why)};
    }
  }
  inflateEnd(&zs);
  return out;
}

Result<std::string> readMaybeGzip(const std::string& path, Progress* progress) {
  auto bytes = readFileBytes(path, progress);
  if (!bytes) return bytes;
  if (!isGzip(*bytes)) return bytes;
  auto plain = gunzip(*bytes, progress);
  if (!plain) return Error{fmt::format("{}: {}", path, plain.error().message)};
  return plain;
}

Status writeFileBytes(const std::string& path, const std::string& bytes) {
  FilePtr f(std::fopen(path.c_str(), "wb"));
  if (!f) return Error{fmt::format("{}: cannot create ({})", path, std::strerror(errno))};
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    return Error{fmt::format("{}: write failed ({})", path, std::strerror(errno))};
  if (std::fclose(f.release()) != 0) return Error{fmt::format("{}: write failed ({})", path, std::strerror(errno))};
  return Ok{};
}

}  // namespace sawtooth
