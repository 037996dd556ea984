#pragma once
// A data-only unpickler. It reads the value-building subset of Python's pickle format (protocols
// 0 to 5) into an immutable document and refuses, with the opcode and its byte offset, every
// opcode that would import or call Python code (GLOBAL, REDUCE, BUILD, ...). Nothing is executed.
//
// Strings and big integers point into the input bytes (zero copy), which the document keeps
// alive; only protocol-0 strings that need unescaping are copied into the document's own pool.
// Every structure the parser grows is counted against a ReadBudget, and the limits on nesting,
// container and string sizes apply: a hostile pickle gets an error, never unbounded memory.
//
// A reader that knows the shape of the data can take over parts of it (pickle::Shapes): the
// parser then asks it, for each new dict or list, whether to build a generic container or the
// reader's own typed object (a Handle), and hands it the items added to its objects.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/pickle_arena.h"
#include "core/io/pickle_value.h"
#include "core/io/read_limits.h"
#include "core/util/cancel.h"
#include "core/util/result.h"

namespace sawtooth::pickle {

// The end of the error a parse with Shapes gives when the pickle changes a container after the
// shapes read it (valid pickle, but not one a reader of shapes can follow: read it generically).
inline constexpr std::string_view kChangedAfterRead = "that was already read";

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
  // Dict lookup by string key; nullptr when absent or when v is not a dict. As in Python, the
  // last of repeated keys wins.
  const Value* get(const Value& dict, std::string_view key) const;
  bool isStr(const Value& v, std::string_view text) const { return v.kind == Kind::Str && str(v) == text; }

  size_t containerCount() const { return containers_.size(); }
  size_t inputSize() const { return input_.size(); }
  std::string_view input() const { return input_; }

  // Marks a container as read: adding to it afterwards stops the parse (a reader that derived
  // something from its items would otherwise hold a stale copy).
  void freeze(const Value& container) const {
    if (container.isContainer()) containers_[container.container].frozen = true;
  }

 private:
  friend class Parser;
  friend Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, const struct ParseOptions&);
  struct Container {
    Value* data = nullptr;
    uint32_t size = 0;
    uint32_t capacity = 0;
    mutable bool frozen = false;
  };
  std::shared_ptr<const void> owner_;  // keeps input_'s bytes alive
  std::string_view input_;
  std::string pool_;
  ItemArena arena_;
  std::vector<Container> containers_;
  Value root_;
};

// The stack the parser builds values on, as a Shapes implementation sees it.
struct StackView {
  std::span<const Value> values;
  size_t mark = SIZE_MAX;  // position in `values` of the innermost MARK; SIZE_MAX when none
};

struct Machine;  // io/pickle_machine.h

class Shapes {
 public:
  virtual ~Shapes() = default;
  // A new empty dict or list is about to be pushed on `stack`. Sets `out` to a Handle to push
  // instead, or leaves it None to let the parser build a generic container. False stops the
  // parse with error().
  virtual bool create(Kind kind, const StackView& stack, const Document& doc, Value& out) = 0;
  // Right after create() gave `handle`: the handle is not on the stack yet. The reader may read
  // the opcodes that follow itself (machine.pos on), as long as it leaves the machine exactly as
  // the parser would have, the handle pushed; false stops the parse with error().
  virtual bool readAhead(const Value& handle, Machine& machine, Document& doc) = 0;
  // Items added to one of the reader's handles (APPEND, APPENDS: values; SETITEM, SETITEMS:
  // key, value, ...; `as` says which). False stops the parse with error().
  virtual bool add(const Value& target, Kind as, std::span<const Value> items, Document& doc) = 0;
  virtual std::string error() const = 0;
};

struct ParseOptions {
  Progress* progress = nullptr;
  ReadBudget* budget = nullptr;  // nullptr: default limits
  Shapes* shapes = nullptr;
  // Called now and then with how far the parse has read (a mapped file drops what lies behind).
  std::function<void(size_t)> consumed;
};

// Parses a whole pickle. Errors read "byte N: ..." (the caller prefixes the file name).
Result<Document> parse(std::string bytes, Progress* progress = nullptr);
// The same over bytes that `owner` keeps alive (a mapped file); the document holds on to it.
Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, Progress* progress = nullptr);
Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, const ParseOptions& options);

}  // namespace sawtooth::pickle
