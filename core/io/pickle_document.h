#pragma once
// A data-only unpickler. It reads the value-building subset of Python's pickle format (protocols
// 0 to 5) into an immutable document and refuses, with the opcode and its byte offset, every
// opcode that would import or call Python code (GLOBAL, REDUCE, BUILD, ...). Nothing is executed.
//
// Strings and big integers point into the input bytes (zero copy), which the document keeps
// alive; only protocol-0 strings that need unescaping are copied into the document's own pool.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/cancel.h"
#include "core/util/result.h"

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

// Storage for the items of every container: large blocks that never move, so a container's
// items stay where they were written. One allocation per block instead of one per container:
// a 5 M-event snapshot holds over 5 M dicts.
class ItemArena {
 public:
  ItemArena() = default;
  ItemArena(ItemArena&&) noexcept = default;
  ItemArena& operator=(ItemArena&&) noexcept = default;

  Value* allocate(size_t count);
  // Grows the most recent allocation, which ends at `end`, by `count` items when the block has
  // room for them; false otherwise.
  bool extend(const Value* end, size_t count);
  // Gives back the storage of a container that moved elsewhere, when it had a block of its own.
  void release(const Value* data);

 private:
  struct Release {
    void operator()(Value* p) const;
  };
  std::vector<std::unique_ptr<Value, Release>> blocks_;  // shared by many containers
  std::vector<std::unique_ptr<Value, Release>> large_;   // one large container each
  Value* cursor_ = nullptr;
  Value* limit_ = nullptr;
  size_t next_block_items_ = size_t{1} << 12;
};

class Document {
 public:
  const Value& root() const { return root_; }

  // Str, Bytes, BigInt (raw little-endian bytes); empty for other kinds.
  std::string_view str(const Value& v) const {
    if (v.kind != Kind::Str && v.kind != Kind::Bytes && v.kind != Kind::BigInt) return {};
    return (v.owned ? std::string_view(pool_) : input_).substr(v.off, v.len);
  }
  // List/Tuple/Set items; for a Dict: key, value, key, value, ...
  std::span<const Value> items(const Value& v) const {
    if (!v.isContainer()) return {};
    const Container& c = containers_[v.container];
    return {c.data, c.size};
  }
  // Dict lookup by string key; nullptr when absent or when v is not a dict.
  const Value* get(const Value& dict, std::string_view key) const;
  bool isStr(const Value& v, std::string_view text) const { return v.kind == Kind::Str && str(v) == text; }

  size_t containerCount() const { return containers_.size(); }
  size_t inputSize() const { return input_.size(); }

 private:
  friend class Parser;
  friend Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, Progress* progress);
  struct Container {
    Value* data = nullptr;
    uint32_t size = 0;
    uint32_t capacity = 0;
  };
  std::shared_ptr<const void> owner_;  // keeps input_'s bytes alive
  std::string_view input_;
  std::string pool_;
  ItemArena arena_;
  std::vector<Container> containers_;
  Value root_;
};

// Parses a whole pickle. Errors read "byte N: ..." (the caller prefixes the file name).
Result<Document> parse(std::string bytes, Progress* progress = nullptr);
// The same over bytes that `owner` keeps alive (a mapped file); the document holds on to it.
Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, Progress* progress = nullptr);

}  // namespace sawtooth::pickle
