#pragma once
// One value of a pickle as the unpickler holds it: 16 bytes, no allocation. Strings and big
// integers point at their bytes (in the input, or in the document's pool); containers are an
// index into the document's container table; a Handle is a reader's own typed object (a snapshot
// event written straight into a column store, say) that the parser carries without looking in.

#include <cstdint>
#include <string_view>

namespace sawtooth::pickle {

enum class Kind : uint8_t { None, Bool, Int, BigInt, Float, Str, Bytes, List, Tuple, Dict, Set, Handle };

std::string_view kindName(Kind kind);

struct Value {
  Kind kind = Kind::None;
  bool owned = false;  // Str/Bytes/BigInt: bytes live in the document's pool, not the input
  uint8_t tag = 0;     // Handle: which of the reader's types
  uint32_t len = 0;    // Str/Bytes/BigInt: byte length
  union {
    int64_t i;           // Bool, Int
    double f;            // Float
    uint64_t off;        // Str, Bytes, BigInt: offset of the bytes
    uint32_t container;  // List, Tuple, Dict, Set
    uint64_t handle;     // Handle: the reader's index
  };
  Value() : i(0) {}

  bool isInt() const { return kind == Kind::Int || kind == Kind::Bool; }
  bool isContainer() const { return kind >= Kind::List && kind <= Kind::Set; }

  static Value makeInt(Kind kind, int64_t v) {
    Value out;
    out.kind = kind;
    out.i = v;
    return out;
  }
  static Value makeHandle(uint8_t tag, uint64_t index) {
    Value out;
    out.kind = Kind::Handle;
    out.tag = tag;
    out.handle = index;
    return out;
  }
};
static_assert(sizeof(Value) == 16);

}  // namespace sawtooth::pickle
