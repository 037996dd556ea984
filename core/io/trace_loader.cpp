#include "core/io/trace_loader.h"

#include <cctype>
#include <cstdio>

#include <fmt/format.h>

#include "core/io/file_bytes.h"
#include "core/io/jax_profile_importer.h"
#include "core/io/memory_timeline_importer.h"
#include "core/io/mapped_file.h"
#include "core/io/native_format.h"
#include "core/io/pickle_document.h"
#include "core/io/profiler_trace_importer.h"
#include "core/io/snapshot_importer.h"

namespace sawtooth {
namespace {

std::string hexPrefix(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(bytes.size(), 4); ++i)
    out += fmt::format("{}{:02x}", i ? " " : "", static_cast<uint8_t>(bytes[i]));
  return out;
}

Result<Trace> importPickle(const Result<pickle::Document>& doc, const std::string& label) {
  if (!doc) return Error{fmt::format("{}: {}", label, doc.error().message)};
  auto trace = importSnapshot(*doc, nullptr);
  if (!trace) return Error{fmt::format("{}: {}", label, trace.error().message)};
  return trace;
}

}  // namespace


TraceFormat detectFormat(const std::string& bytes) {
  if (bytes.compare(0, native::kSqliteMagic.size(), native::kSqliteMagic) == 0) return TraceFormat::Native;
  if (!bytes.empty() && static_cast<uint8_t>(bytes[0]) == 0x80) return TraceFormat::PytorchSnapshot;
  if (looksLikePprof(bytes)) return TraceFormat::JaxMemoryProfile;
  if (looksLikeMemoryTimeline(bytes)) return TraceFormat::MemoryTimeline;
  if (looksLikeHtml(bytes)) return TraceFormat::Html;
  for (char c : bytes) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '{' || c == '[') return TraceFormat::ProfilerTrace;
    // Protocol 0/1 pickles start with a MARK or a container opcode, and end with STOP.
    if (c == '(' || c == '}' || c == ']' || c == 'd' || c == 'l') return TraceFormat::PytorchSnapshot;
    break;
  }
  if (!bytes.empty() && bytes.back() == '.') return TraceFormat::PytorchSnapshot;
  return TraceFormat::Unknown;
}

Result<Trace> loadTraceFromBytes(std::string bytes, const std::string& label, Progress* progress) {
  auto withFile = [&](const Error& e) { return Error{fmt::format("{}: {}", label, e.message)}; };
  switch (detectFormat(bytes)) {
    case TraceFormat::PytorchSnapshot:
      return importPickle(pickle::parse(std::move(bytes), progress), label);
    case TraceFormat::ProfilerTrace: {
      auto trace = importProfilerTrace(bytes, progress);
      if (!trace) return withFile(trace.error());
      return trace;
    }
    case TraceFormat::MemoryTimeline: {
      auto trace = importMemoryTimeline(bytes, progress);
      if (!trace) return withFile(trace.error());
      return trace;
    }
    case TraceFormat::JaxMemoryProfile: {
      auto trace = importJaxMemoryProfile(bytes, label, progress);
      if (!trace) return withFile(trace.error());
      return trace;
    }
    case TraceFormat::Html:
      return withFile(htmlRefusal(bytes));
    case TraceFormat::Native:
      return Error{fmt::format("{}: a .sawtooth file must be opened from disk", label)};
    case TraceFormat::Unknown:
      break;
  }
  if (bytes.empty()) return Error{fmt::format("{}: the file is empty", label)};
  return Error{fmt::format("{}: not a PyTorch memory snapshot (.pickle), a torch.profiler trace or memory timeline "
                           "(.json), a JAX memory profile or a .sawtooth file (it starts with bytes {})",
                           label, hexPrefix(bytes))};
}

Result<Trace> loadTrace(const std::string& path, Progress* progress) {
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f) {
      char head[16] = {};
      size_t n = std::fread(head, 1, sizeof head, f);
      std::fclose(f);
      const std::string start(head, n);
      const TraceFormat format = detectFormat(start);
      if (format == TraceFormat::Native) return readNative(path, progress);
      // An uncompressed pickle is parsed where it lies in the page cache: no copy of the file.
      if (format == TraceFormat::PytorchSnapshot && !isGzip(start)) {
        if (auto mapped = MappedFile::open(path)) {
          auto owner = std::make_shared<const MappedFile>(std::move(*mapped));
          const std::string_view bytes = owner->bytes();
          return importPickle(pickle::parse(std::move(owner), bytes, progress), path);
        }
      }
    }
  }
  // Reading and decompressing take the first fifth of the progress bar, parsing the rest.
  Progress reading = progress ? progress->sub(0, 200) : Progress();
  auto bytes = readMaybeGzip(path, progress ? &reading : nullptr);
  if (!bytes) return bytes.error();
  Progress parsing = progress ? progress->sub(200, 1000) : Progress();
  return loadTraceFromBytes(std::move(*bytes), path, progress ? &parsing : nullptr);
}

}  // namespace sawtooth
