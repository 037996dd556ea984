#pragma once
// Protocol Buffers' wire format, read without a schema over bytes already in memory: each field's
// number, wire type and value (a varint, a fixed 32/64-bit word, or a length-delimited byte range
// that is a string, a nested message or a packed repeated field). Every length is checked against
// the bytes left; nothing is copied or allocated. Groups (wire types 3 and 4, deprecated since
// proto2) are refused. https://protobuf.dev/programming-guides/encoding/

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sawtooth::protobuf {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };

struct Field {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t value = 0;      // Varint, Fixed64, Fixed32
  std::string_view bytes;  // Bytes
};

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}
  // The next field, or false at the end of the data or on malformed data (then error() says what,
  // and where, as a byte offset from the start of this reader's data).
  bool next(Field& field);
  const std::string& error() const { return error_; }
  size_t offset() const { return pos_; }

 private:
  bool varint(uint64_t& out);
  bool fail(std::string message);

  std::string_view data_;
  size_t pos_ = 0;
  std::string error_;
};

// A repeated integer field's values: one varint (unpacked) or a byte range of varints (packed);
// both are valid encodings of the same field. False on a malformed packed range (`out` unchanged).
bool appendVarints(const Field& field, std::vector<uint64_t>& out);

// Fixed-width wire types carry a field the schema says is an integer of that width; the schema
// decides how to read a varint (int64 / uint64 are its bits as they are).
inline int64_t asInt64(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace sawtooth::protobuf
