#include "core/io/trace_convert.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/io/file_bytes.h"
#include "core/io/native_format.h"
#include "core/io/snapshot_convert.h"
#include "core/io/summary_cache.h"
#include "core/io/trace_loader.h"
#include "core/util/printable.h"

namespace sawtooth {
namespace {

namespace fs = std::filesystem;

// A database and the side files SQLite may leave beside it.
void removeDatabase(const std::string &path) {
  std::error_code ec;
  for (const char *suffix : {"", "-journal", "-wal", "-shm"}) fs::remove(path + suffix, ec);
}

}  // namespace

uint64_t conversionInputBytes(const std::string &path) {
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) return 0;
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return size;
  unsigned char head[2] = {}, tail[4] = {};
  uint64_t inflated = 0;
  if (std::fread(head, 1, 2, f) == 2 && isGzip(std::string_view(reinterpret_cast<const char *>(head), 2)) &&
      size >= 18 && std::fseek(f, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, f) == 4)
    inflated = uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 | uint64_t{tail[3]} << 24;
  std::fclose(f);
  return std::max(size, inflated);
}

Status withinWrittenAmplification(const StackTable &stacks, uint64_t input_bytes, const ReadLimits &limits,
                                  const std::string &label) {
  ReadBudget budget(limits);
  budget.setInputBytes(input_bytes);
  const uint64_t cap = budget.amplificationCap();
  uint64_t total = 0;
  uint32_t longest = 0;
  size_t longest_bytes = 0;
  for (size_t i = 0; i < stacks.frameCount(); ++i) {
    const FrameView f = stacks.frame(static_cast<uint32_t>(i));
    const size_t bytes = f.name.size() + f.file.size();
    total += bytes;
    if (bytes > longest_bytes) longest_bytes = bytes, longest = static_cast<uint32_t>(i);
  }
  if (total <= cap) return Ok{};
  // Where the bytes come from: the longest frame's text, and how many frames
  // repeat it (interned strings share their bytes, so one name is one address).
  const FrameView f = stacks.frame(longest);
  uint64_t repeated = 0;
  for (size_t i = 0; i < stacks.frameCount(); ++i) {
    const FrameView g = stacks.frame(static_cast<uint32_t>(i));
    if ((f.name.size() >= f.file.size() ? g.name.data() == f.name.data() : g.file.data() == f.file.data())) ++repeated;
  }
  const bool by_name = f.name.size() >= f.file.size();
  const std::string_view text = by_name ? f.name : f.file;
  return Error{fmt::format(
      "{}: converting it would write {} bytes of frame names and files from {} "
      "bytes of input (frame {}'s {}, {} "
      "bytes starting \"{}\", is repeated by {} frames): more than {} a byte "
      "past the first {} (the amplification "
      "limit; {}). `sawtooth-trace info` reads the file without writing it",
      label, total, input_bytes, longest, by_name ? "name" : "file", text.size(), printable(text.substr(0, 40)),
      repeated, limits.max_amplification, limits.amplification_floor, raiseHint("amplification"))};
}

Status convertTrace(const std::string &in, const std::string &out, const ReadLimits &limits, Progress *progress) {
  if (isNativeFile(in)) return upgradeNative(in, out, progress);
  // A PyTorch snapshot streams into the file (memory bounded by the summaries,
  // not the events); one the stream cannot take is converted from the whole
  // trace.
  bool whole = false;
  Status streamed = convertSnapshotStreaming(in, out, limits, whole, progress);
  if (streamed) return Ok{};
  if (!whole) return streamed;
  if (progress && progress->cancelled()) return Error{"cancelled"};
  auto trace = loadTrace(in, progress, limits);
  if (!trace) return trace.error();
  if (Status st = withinWrittenAmplification(trace->stacks, conversionInputBytes(in), limits, in); !st) return st;
  return writeNative(*trace, out);
}

Result<std::string> cachedConversionPath(const std::string &dir, const std::string &snapshot) {
  auto key = fileContentKey(snapshot);
  if (!key) return key.error();
  return (fs::path(dir) / (*key + ".sawtooth")).string();
}

std::optional<std::string> findCachedConversion(const std::string &dir, const std::string &snapshot) {
  auto path = cachedConversionPath(dir, snapshot);
  std::error_code ec;
  if (!path || !fs::is_regular_file(*path, ec)) return std::nullopt;
  return *path;
}

Result<std::string> convertIntoCache(const std::string &dir, const std::string &snapshot, const ReadLimits &limits,
                                     Progress *progress) {
  auto target = cachedConversionPath(dir, snapshot);
  if (!target) return target.error();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{fmt::format("{}: cannot make the cache folder ({})", dir, ec.message())};
  // Not named *.sawtooth until whole: findCachedConversion never sees a part.
  const std::string temp = fmt::format("{}.{}.partial", *target, ::getpid());
  removeDatabase(temp);
  Status st = convertTrace(snapshot, temp, limits, progress);
  if (st && progress && progress->cancelled()) st = Error{"cancelled"};
  if (!st) {
    removeDatabase(temp);
    return st.error();
  }
  fs::rename(temp, *target, ec);
  if (ec) {
    removeDatabase(temp);
    return Error{fmt::format("{}: cannot keep the conversion there ({})", *target, ec.message())};
  }
  return *target;
}

}  // namespace sawtooth
