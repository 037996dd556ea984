#include "core/io/snapshot_segments.h"

#include <limits>

#include <fmt/format.h>


namespace sawtooth {
namespace {

using pickle::Kind;
using pickle::Value;

int64_t intOr(const pickle::Document& doc, const Value& dict, std::string_view key, int64_t fallback) {
  const Value* v = doc.get(dict, key);
  return v && v->isInt() ? v->i : fallback;
}

}  // namespace

Result<SnapshotSegment> readSnapshotSegment(const pickle::Document& doc, const Value& seg, size_t index,
                                            const std::function<uint32_t(const Value&)>& intern_stack,
                                            std::string* warnings) {
  if (seg.kind != Kind::Dict) return Error{fmt::format("segments[{}] is not a dict", index)};
  SnapshotSegment out;
  const int64_t device = intOr(doc, seg, "device", 0);
  if (device < 0 || device > std::numeric_limits<DeviceId>::max())
    return Error{fmt::format("segments[{}]: device {} is not a CUDA device", index, device)};
  out.device = static_cast<DeviceId>(device);
  out.address = static_cast<uint64_t>(intOr(doc, seg, "address", 0));
  out.total_size = intOr(doc, seg, "total_size", 0);
  out.stream = static_cast<uint64_t>(intOr(doc, seg, "stream", 0));
  if (const Value* type = doc.get(seg, "segment_type"); type && type->kind == Kind::Str)
    out.small_pool = doc.str(*type) == "small";
  if (const Value* e = doc.get(seg, "is_expandable"); e && e->isInt()) out.expandable = e->i != 0;
  if (const Value* pool = doc.get(seg, "segment_pool_id"); pool && pool->isContainer()) {
    auto ids = doc.items(*pool);
    if (ids.size() == 2 && ids[0].isInt() && ids[1].isInt()) out.pool_id = {ids[0].i, ids[1].i};
  }
  if (const Value* frames = doc.get(seg, "frames")) out.stack = intern_stack(*frames);

  const Value* blocks = doc.get(seg, "blocks");
  if (!blocks) return out;
  auto warn = [&](std::string text) {
    if (warnings && warnings->size() < 4096) *warnings += text + "; ";  // a hostile file could repeat it millions of times
  };
  if (blocks->kind != Kind::List) {
    warn(fmt::format("segments[{}]: 'blocks' is not a list", index));
    return out;
  }
  uint64_t next_address = out.address;  // blocks before PyTorch 2.1 carry no address
  size_t b = 0;
  for (const Value& block : doc.items(*blocks)) {
    if (block.kind != Kind::Dict) {
      warn(fmt::format("segments[{}].blocks[{}] is not a dict: skipped", index, b++));
      continue;
    }
    SnapshotBlock sb;
    sb.address = static_cast<uint64_t>(intOr(doc, block, "address", static_cast<int64_t>(next_address)));
    sb.size = intOr(doc, block, "size", 0);
    sb.requested_size = intOr(doc, block, "requested_size", sb.size);
    if (const Value* state = doc.get(block, "state"); state && state->kind == Kind::Str) {
      if (auto parsed = parseBlockState(doc.str(*state))) sb.state = *parsed;
      else warn(fmt::format("segments[{}].blocks[{}]: unknown state '{}' read as inactive", index, b, doc.str(*state)));
    }
    if (const Value* frames = doc.get(block, "frames")) sb.stack = intern_stack(*frames);
    next_address = sb.address + static_cast<uint64_t>(sb.size);  // unsigned: wraps, never undefined
    out.blocks.push_back(sb);
    ++b;
  }
  return out;
}

}  // namespace sawtooth
