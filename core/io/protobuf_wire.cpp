#include "core/io/protobuf_wire.h"

#include <cstring>

#include <fmt/format.h>

namespace sawtooth::protobuf {
namespace {

constexpr size_t kMaxVarintBytes = 10;
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;

enum class VarintRead { Ok, Truncated, TooLong };

// Seven bits a byte, least significant first, the top bit set on every byte but the last.
VarintRead readVarint(std::string_view data, size_t& pos, uint64_t& out) {
  out = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos >= data.size()) return VarintRead::Truncated;
    const auto byte = static_cast<uint8_t>(data[pos++]);
    out |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80)) return VarintRead::Ok;
  }
  return VarintRead::TooLong;
}

}  // namespace

bool WireReader::fail(std::string message) {
  error_ = std::move(message);
  pos_ = data_.size();
  return false;
}

bool WireReader::varint(uint64_t& out) {
  const size_t start = pos_;
  switch (readVarint(data_, pos_, out)) {
    case VarintRead::Ok: return true;
    case VarintRead::Truncated: return fail(fmt::format("byte {}: the data ends inside a varint", start));
    case VarintRead::TooLong: return fail(fmt::format("byte {}: a varint longer than {} bytes", start, kMaxVarintBytes));
  }
  return false;
}

bool WireReader::next(Field& field) {
  if (pos_ >= data_.size() || !error_.empty()) return false;
  const size_t start = pos_;
  uint64_t key = 0;
  if (!varint(key)) return false;
  const uint64_t number = key >> 3;
  if (number == 0 || number > kMaxFieldNumber) return fail(fmt::format("byte {}: field number {} is not valid", start, number));
  field.number = static_cast<uint32_t>(number);
  field.type = static_cast<WireType>(key & 7);
  field.value = 0;
  field.bytes = {};
  switch (field.type) {
    case WireType::Varint:
      return varint(field.value);
    case WireType::Fixed64:
    case WireType::Fixed32: {
      const size_t width = field.type == WireType::Fixed64 ? 8 : 4;
      if (data_.size() - pos_ < width)
        return fail(fmt::format("byte {}: field {} needs {} bytes, {} are left", start, number, width, data_.size() - pos_));
      uint8_t word[8] = {};
      std::memcpy(word, data_.data() + pos_, width);
      for (size_t i = 0; i < width; ++i) field.value |= static_cast<uint64_t>(word[i]) << (8 * i);  // little-endian
      pos_ += width;
      return true;
    }
    case WireType::Bytes: {
      uint64_t length = 0;
      if (!varint(length)) return false;
      if (length > data_.size() - pos_)
        return fail(fmt::format("byte {}: field {} claims {} bytes, {} are left", start, number, length, data_.size() - pos_));
      field.bytes = data_.substr(pos_, static_cast<size_t>(length));
      pos_ += static_cast<size_t>(length);
      return true;
    }
    case WireType::StartGroup:
    case WireType::EndGroup:
      return fail(fmt::format("byte {}: field {} is a group (wire type {}), which this reader does not take", start, number,
                              static_cast<int>(key & 7)));
  }
  return fail(fmt::format("byte {}: field {} has wire type {}, which does not exist", start, number, static_cast<int>(key & 7)));
}

bool appendVarints(const Field& field, std::vector<uint64_t>& out) {
  if (field.type == WireType::Varint) {
    out.push_back(field.value);
    return true;
  }
  if (field.type != WireType::Bytes) return false;
  // A packed range is a sequence of varints with no keys.
  const size_t before = out.size();
  size_t pos = 0;
  while (pos < field.bytes.size()) {
    uint64_t v = 0;
    if (readVarint(field.bytes, pos, v) != VarintRead::Ok) {
      out.resize(before);
      return false;
    }
    out.push_back(v);
  }
  return true;
}

}  // namespace sawtooth::protobuf
