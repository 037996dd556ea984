#include "io/pickle_text.h"

#include <nlohmann/json.hpp>

namespace sawtooth::pickle {
namespace {

nlohmann::json toJson(const Document& doc, const Value& v, int depth) {
  if (depth <= 0) return "...";
  switch (v.kind) {
    case Kind::None: return nullptr;
    case Kind::Bool: return v.i != 0;
    case Kind::Int: return v.i;
    case Kind::BigInt: return "<big int>";
    case Kind::Float: return v.f;
    case Kind::Str: return std::string(doc.str(v));
    case Kind::Bytes: return "<" + std::to_string(v.len) + " bytes>";
    case Kind::Dict: {
      nlohmann::json out = nlohmann::json::object();
      auto kv = doc.items(v);
      for (size_t i = 0; i + 1 < kv.size(); i += 2) {
        std::string key = kv[i].kind == Kind::Str ? std::string(doc.str(kv[i])) : toJson(doc, kv[i], depth - 1).dump();
        out[key] = toJson(doc, kv[i + 1], depth - 1);
      }
      return out;
    }
    case Kind::List:
    case Kind::Tuple:
    case Kind::Set: {
      nlohmann::json out = nlohmann::json::array();
      for (const Value& item : doc.items(v)) out.push_back(toJson(doc, item, depth - 1));
      return out;
    }
  }
  return nullptr;
}

}  // namespace

std::string toText(const Document& doc, const Value& value, int max_depth) {
  if (value.kind == Kind::Str) return std::string(doc.str(value));
  return toJson(doc, value, max_depth).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sawtooth::pickle
