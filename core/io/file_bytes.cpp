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

Result<std::string> readFileBytes(const std::string& path, Progress* progress, ReadBudget* budget) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) return Error{fmt::format("{}: cannot open ({})", path, std::strerror(errno))};
  if (std::fseek(f.get(), 0, SEEK_END) != 0) return Error{fmt::format("{}: cannot seek ({})", path, std::strerror(errno))};
  long end = std::ftell(f.get());
  if (end < 0) return Error{fmt::format("{}: not a regular file", path)};
  std::fseek(f.get(), 0, SEEK_SET);
  const size_t size = static_cast<size_t>(end);
  if (budget && !budget->take(size + kParsePadding)) return Error{fmt::format("{}: {}", path, budget->memoryError("the file's bytes").message)};
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

bool isGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f && static_cast<uint8_t>(bytes[1]) == 0x8b;
}

Result<std::string> gunzip(const std::string& compressed, Progress* progress, ReadBudget* budget,
                           const HeadCheck& check_head) {
  ReadBudget local;
  ReadBudget& b = budget ? *budget : local;
  const ReadLimits& limits = b.limits();
  // The most the data may inflate to: a multiple of its compressed size, and an absolute cap.
  uint64_t cap = limits.max_decompressed ? limits.max_decompressed : b.limit();
  const bool by_ratio = compressed.size() <= cap / std::max<uint64_t>(limits.max_decompress_ratio, 1);
  if (by_ratio) cap = std::max<uint64_t>(compressed.size() * limits.max_decompress_ratio, 1 << 20);
  auto tooLarge = [&] {
    return Error{by_ratio ? fmt::format("it decompresses to more than {} bytes, {} times its size (the "
                                        "decompress-ratio limit; {})",
                                        cap, limits.max_decompress_ratio, raiseHint("decompress-ratio"))
                          : fmt::format("it decompresses to more than {} bytes (the decompressed limit; {})", cap,
                                        raiseHint("decompressed"))};
  };

  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return Error{"zlib could not start"};
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } end_guard{&zs};
  std::string out;
  uint64_t taken = 0;
  auto reserve = [&](size_t capacity) {
    if (capacity > taken) {
      if (!b.take(capacity - taken)) return false;
      taken = capacity;
    }
    out.reserve(capacity);
    return true;
  };
  if (!reserve(std::min<uint64_t>(compressed.size() * 4, cap) + kParsePadding))
    return b.memoryError("the decompressed bytes");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(compressed.size(), UINT32_MAX));
  size_t fed = zs.avail_in;
  bool head_checked = !check_head;
  int rc = Z_OK;
  while (true) {
    if (out.capacity() < out.size() + (1 << 16) + kParsePadding) {
      if (out.size() >= cap) return tooLarge();
      const uint64_t want = std::min<uint64_t>(uint64_t{out.capacity()} * 2 + (1 << 20), cap + (1 << 16)) + kParsePadding;
      if (!reserve(want)) return b.memoryError("the decompressed bytes");
    }
    const size_t before = out.size();
    // The first round inflates only a few KB, so that the head is checked before the rest.
    const size_t room = std::min<size_t>(out.capacity() - kParsePadding - before, head_checked ? SIZE_MAX : 4096);
    out.resize(before + room);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(room, UINT32_MAX));
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(before + (room - zs.avail_out));
    if (out.size() > cap) return tooLarge();
    if (!head_checked && (out.size() >= 64 || rc == Z_STREAM_END)) {
      head_checked = true;
      if (Status st = check_head(std::string_view(out).substr(0, 64)); !st) return st.error();
    }
    if (zs.avail_in == 0 && fed < compressed.size()) {
      size_t more = std::min<size_t>(compressed.size() - fed, UINT32_MAX);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + fed));
      zs.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    if (progress) {
      if (progress->cancelled()) return Error{"cancelled"};
      progress->report(fed - zs.avail_in, compressed.size());
    }
    if (b.pastDeadline()) return b.timeError();
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members (gzip a b > c) continue after the first one ends.
      if (zs.avail_in > 0 || fed < compressed.size()) {
        inflateReset(&zs);
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0)
      return Error{fmt::format("the gzip data ends early after {} compressed bytes (truncated?)", compressed.size())};
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      std::string why = zs.msg ? zs.msg : "corrupt data";
      size_t at = fed - zs.avail_in;
      return Error{fmt::format("the gzip data is corrupt near compressed byte {} ({})", at, why)};
    }
  }
  if (!head_checked) {
    if (Status st = check_head(std::string_view(out).substr(0, 64)); !st) return st.error();
  }
  return out;
}

Result<std::string> readMaybeGzip(const std::string& path, Progress* progress, ReadBudget* budget,
                                  const HeadCheck& check_head) {
  auto bytes = readFileBytes(path, progress, budget);
  if (!bytes) return bytes;
  if (!isGzip(*bytes)) return bytes;
  auto plain = gunzip(*bytes, progress, budget, check_head);
  if (budget) budget->give(bytes->size() + kParsePadding);  // the compressed bytes go now
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
