#include "capture/ingest/wire_reader.h"

#include <fmt/format.h>

namespace sawtooth::record {
namespace {

// Reads fixed-size values off the front of a payload, refusing to read past its end.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  bool empty() const { return bytes_.empty(); }
  size_t left() const { return bytes_.size(); }

  template <typename T>
  bool read(T& out) {
    if (bytes_.size() < sizeof(T)) return false;
    std::memcpy(&out, bytes_.data(), sizeof(T));
    bytes_.remove_prefix(sizeof(T));
    return true;
  }
  bool readText(size_t n, std::string& out) {
    if (bytes_.size() < n) return false;
    out.assign(bytes_.data(), n);
    bytes_.remove_prefix(n);
    return true;
  }

 private:
  std::string_view bytes_;
};

template <typename T>
Status decodeFixed(std::string_view payload, std::vector<T>& out, const char* what) {
  if (payload.size() % sizeof(T) != 0)
    return Error{fmt::format("{} frame of {} bytes is not a whole number of {}-byte entries", what, payload.size(),
                             sizeof(T))};
  const size_t n = payload.size() / sizeof(T);
  const size_t first = out.size();
  out.resize(first + n);
  if (n) std::memcpy(static_cast<void*>(out.data() + first), payload.data(), payload.size());
  return Ok{};
}

}  // namespace

Status FrameReader::feed(std::string_view bytes, const OnFrame& on_frame) {
  pending_.append(bytes);
  size_t at = 0;
  Status status = Ok{};
  while (pending_.size() - at >= wire::kHeaderSize) {
    const wire::Header h = wire::decodeHeader(pending_.data() + at);
    if (h.length > wire::kMaxPayload) {
      status = Error{fmt::format("frame of {} bytes is over the {}-byte limit", h.length, wire::kMaxPayload)};
      break;
    }
    if (pending_.size() - at - wire::kHeaderSize < h.length) break;
    status = on_frame(h, std::string_view(pending_).substr(at + wire::kHeaderSize, h.length));
    at += wire::kHeaderSize + h.length;
    if (!status) break;
  }
  pending_.erase(0, at);
  return status;
}

Status decodeRecords(std::string_view payload, std::vector<wire::Record>& out) {
  return decodeFixed(payload, out, "records");
}

Status decodeKernels(std::string_view payload, std::vector<wire::Kernel>& out) {
  return decodeFixed(payload, out, "kernels");
}

Status decodeFrames(std::string_view payload, std::vector<FrameDef>& out) {
  Cursor c(payload);
  while (!c.empty()) {
    FrameDef f;
    uint16_t name_bytes = 0, file_bytes = 0;
    if (!c.read(f.id) || !c.read(f.line) || !c.read(name_bytes) || !c.read(file_bytes) ||
        !c.readText(name_bytes, f.name) || !c.readText(file_bytes, f.file))
      return Error{fmt::format("frames frame cut short ({} bytes left)", c.left())};
    out.push_back(std::move(f));
  }
  return Ok{};
}

Status decodeStacks(std::string_view payload, std::vector<StackDef>& out) {
  Cursor c(payload);
  while (!c.empty()) {
    StackDef s;
    uint16_t depth = 0;
    if (!c.read(s.id) || !c.read(depth)) return Error{"stacks frame cut short"};
    if (depth > wire::kMaxStackDepth)
      return Error{fmt::format("stack {} has {} frames, over the limit of {}", s.id, depth, wire::kMaxStackDepth)};
    s.frames.resize(depth);
    for (uint32_t& f : s.frames)
      if (!c.read(f)) return Error{"stacks frame cut short"};
    out.push_back(std::move(s));
  }
  return Ok{};
}

Status decodeNames(std::string_view payload, std::vector<NameDef>& out) {
  Cursor c(payload);
  while (!c.empty()) {
    NameDef n;
    uint16_t bytes = 0;
    if (!c.read(n.id) || !c.read(bytes) || !c.readText(bytes, n.text)) return Error{"names frame cut short"};
    out.push_back(std::move(n));
  }
  return Ok{};
}

Status decodeModules(std::string_view payload, std::vector<ModuleDef>& out) {
  Cursor c(payload);
  while (!c.empty()) {
    ModuleDef m;
    uint16_t name_bytes = 0, class_bytes = 0;
    if (!c.read(m.id) || !c.read(m.parent) || !c.read(m.parameter_bytes) || !c.read(name_bytes) ||
        !c.read(class_bytes) || !c.readText(name_bytes, m.name) || !c.readText(class_bytes, m.class_name))
      return Error{fmt::format("modules frame cut short ({} bytes left)", c.left())};
    if (m.parameter_bytes < 0) return Error{fmt::format("module {} has {} parameter bytes", m.id, m.parameter_bytes)};
    out.push_back(std::move(m));
  }
  return Ok{};
}

Result<int64_t> decodeTime(std::string_view payload) {
  Cursor c(payload);
  int64_t t = 0;
  if (payload.size() != sizeof t || !c.read(t)) return Error{fmt::format("time frame of {} bytes, expected 8", payload.size())};
  return t;
}

}  // namespace sawtooth::record
