#pragma once
// A data-only unpickler. It reads the value-building subset of Python's pickle format (protocols
// 0 to 5) into an immutable document and refuses, with the opcode and its byte offset, every
// opcode that would import or call Python code (GLOBAL, REDUCE, BUILD, ...). Nothing is executed.
//
// Strings and big integers point into the input buffer (zero copy); only protocol-0 strings that
// need unescaping are copied into the document's own pool.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/cancel.h"
#include "util/result.h"

namespace sawtooth::pickle {

enum class Kind : uint8_t { None, Bool, Int, BigInt, Float, Str, Bytes, List, Tuple, Dict, Set };

std::string_view kindName(Kind kind);

struct Value {
  Kind kind = Kind::None;
  bool owned = false;  // Str/Bytes/BigInt: bytes live in the document's pool, not the input
  uint32_t len = 0;    // Str/Bytes/BigInt: byte length
  union {
    int64_t i;           // Bool, Int
    double f;            // Float
    uint64_t off;        // Str, Bytes, BigInt: offset of the bytes
    uint32_t container;  // List, Tuple, Dict, Set
  };
  Value() : i(0) {}

  bool isInt() const { return kind == Kind::Int || kind == Kind::Bool; }
  bool isContainer() const { return kind >= Kind::List; }
};
static_assert(sizeof(Value) == 16);

class Document {
 public:
  const Value& root() const { return root_; }

  std::string_view str(const Value& v) const;  // Str, Bytes, BigInt (raw little-endian bytes)
  // List/Tuple/Set items; for a Dict: key, value, key, value, ...
  std::span<const Value> items(const Value& v) const;
  // Dict lookup by string key; nullptr when absent or when v is not a dict.
  const Value* get(const Value& dict, std::string_view key) const;
  bool isStr(const Value& v, std::string_view text) const { return v.kind == Kind::Str && str(v) == text; }

  size_t containerCount() const { return containers_.size(); }
  size_t inputSize() const { return input_.size(); }

 private:
  friend class Parser;
  friend Result<Document> parse(std::string bytes, Progress* progress);
  std::string input_;
  std::string pool_;
  std::vector<std::vector<Value>> containers_;
  Value root_;
};

// Parses a whole pickle. Errors read "byte N: ..." (the caller prefixes the file name).
Result<Document> parse(std::string bytes, Progress* progress = nullptr);

}  // namespace sawtooth::pickle
