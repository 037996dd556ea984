#pragma once
// A small pickler for tests, writing what Python's pickle.dumps writes for the same objects
// (protocols 2 and 4): each object once, then memo references to it; lists and dicts filled in
// batches of 1000, a single item by APPEND / SETITEM. Objects are shared by pointer, so a test
// builds exactly the sharing a real snapshot has (one frame dict in many stacks, one frames list
// in a block and its event, ...).

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sawtooth::test {

struct Obj;
using ObjP = std::shared_ptr<Obj>;

struct Obj {
  enum Type { None, Bool, Int, Float, Str, List, Dict, Tuple } type = None;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<ObjP> items;  // List, Tuple: items; Dict: key, value, key, value, ...
};

inline ObjP none() { return std::make_shared<Obj>(); }
inline ObjP integer(int64_t v) {
  auto o = std::make_shared<Obj>();
  o->type = Obj::Int;
  o->i = v;
  return o;
}
inline ObjP boolean(bool v) {
  auto o = std::make_shared<Obj>();
  o->type = Obj::Bool;
  o->i = v;
  return o;
}
inline ObjP text(std::string v) {
  auto o = std::make_shared<Obj>();
  o->type = Obj::Str;
  o->s = std::move(v);
  return o;
}
inline ObjP list(std::vector<ObjP> items = {}) {
  auto o = std::make_shared<Obj>();
  o->type = Obj::List;
  o->items = std::move(items);
  return o;
}
inline ObjP tuple(std::vector<ObjP> items) {
  auto o = std::make_shared<Obj>();
  o->type = Obj::Tuple;
  o->items = std::move(items);
  return o;
}
// Keys are strings made here unless given as objects (to share a key object, as Python does).
inline ObjP dict(std::vector<std::pair<ObjP, ObjP>> kv = {}) {
  auto o = std::make_shared<Obj>();
  o->type = Obj::Dict;
  for (auto& [k, v] : kv) {
    o->items.push_back(k);
    o->items.push_back(v);
  }
  return o;
}

class Pickler {
 public:
  explicit Pickler(int protocol = 4) : protocol_(protocol) {}

  std::string dumps(const ObjP& root) {
    out_.clear();
    memo_.clear();
    out_ += '\x80';
    out_ += static_cast<char>(protocol_);
    save(root);
    out_ += '.';
    return out_;
  }

 private:
  void le(uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) out_ += static_cast<char>((v >> (8 * k)) & 0xff);
  }
  void memoize(const Obj* o) {
    const auto index = memo_.size();
    memo_[o] = index;
    if (protocol_ >= 4) {
      out_ += '\x94';
    } else if (index < 256) {
      out_ += 'q';
      le(index, 1);
    } else {
      out_ += 'r';
      le(index, 4);
    }
  }
  bool fromMemo(const Obj* o) {
    auto it = memo_.find(o);
    if (it == memo_.end()) return false;
    if (it->second < 256) {
      out_ += 'h';
      le(it->second, 1);
    } else {
      out_ += 'j';
      le(it->second, 4);
    }
    return true;
  }
  void saveInt(int64_t v) {
    if (v >= 0 && v < 256) {
      out_ += 'K';
      le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
      out_ += 'M';
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out_ += 'J';
      le(static_cast<uint64_t>(v), 4);
    } else {
      // LONG1 with the fewest two's complement bytes.
      int n = 1;
      while (n < 8) {
        const int64_t lo = -(int64_t{1} << (8 * n - 1)), hi = (int64_t{1} << (8 * n - 1)) - 1;
        if (v >= lo && v <= hi) break;
        ++n;
      }
      out_ += '\x8a';
      out_ += static_cast<char>(n);
      le(static_cast<uint64_t>(v), n);
    }
  }
  void save(const ObjP& o) {
    switch (o->type) {
      case Obj::None: out_ += 'N'; return;
      case Obj::Bool: out_ += o->i ? '\x88' : '\x89'; return;
      case Obj::Int: saveInt(o->i); return;
      case Obj::Float: {
        out_ += 'G';
        uint64_t bits;
        static_assert(sizeof bits == sizeof o->f);
        std::memcpy(&bits, &o->f, sizeof bits);
        for (int k = 7; k >= 0; --k) out_ += static_cast<char>((bits >> (8 * k)) & 0xff);
        return;
      }
      case Obj::Str:
        if (fromMemo(o.get())) return;
        if (protocol_ >= 4 && o->s.size() < 256) {
          out_ += '\x8c';
          le(o->s.size(), 1);
        } else {
          out_ += 'X';
          le(o->s.size(), 4);
        }
        out_ += o->s;
        memoize(o.get());
        return;
      case Obj::Tuple:
        if (fromMemo(o.get())) return;
        if (o->items.empty()) {
          out_ += ')';
        } else if (o->items.size() <= 3) {
          for (const auto& item : o->items) save(item);
          out_ += static_cast<char>(0x84 + o->items.size());
        } else {
          out_ += '(';
          for (const auto& item : o->items) save(item);
          out_ += 't';
        }
        memoize(o.get());
        return;
      case Obj::List:
      case Obj::Dict: {
        if (fromMemo(o.get())) return;
        const bool is_dict = o->type == Obj::Dict;
        out_ += is_dict ? '}' : ']';
        memoize(o.get());
        const size_t step = is_dict ? 2 : 1;
        const size_t n = o->items.size() / step;
        for (size_t b = 0; b < n; b += 1000) {
          const size_t count = std::min<size_t>(1000, n - b);
          if (count == 1) {
            for (size_t k = 0; k < step; ++k) save(o->items[b * step + k]);
            out_ += is_dict ? 's' : 'a';
          } else {
            out_ += '(';
            for (size_t k = b * step; k < (b + count) * step; ++k) save(o->items[k]);
            out_ += is_dict ? 'u' : 'e';
          }
        }
        return;
      }
    }
  }

  int protocol_;
  std::string out_;
  std::map<const Obj*, size_t> memo_;
};

}  // namespace sawtooth::test
