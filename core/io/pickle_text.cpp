#include "core/io/pickle_text.h"

#include <nlohmann/json.hpp>

namespace sawtooth::pickle {
namespace {

// The memo lets a pickle put one container inside itself many times, so a depth limit alone
// still allows fanout^depth nodes; the node budget bounds the work whatever the shape.
constexpr size_t kMaxNodes = 1000;

std::string dumpText(const nlohmann::json& j) {
  // Pickled strings are not validated as UTF-8; replace what is not rather than throw.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json toJson(const Document& doc, const Value& v, int depth, size_t& budget, bool& saw_handle) {
  if (depth <= 0 || budget == 0) return "...";
  --budget;
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
        if (budget == 0) {
          out["..."] = "...";
          break;
        }
        std::string key = kv[i].kind == Kind::Str ? std::string(doc.str(kv[i])) : dumpText(toJson(doc, kv[i], depth - 1, budget, saw_handle));
        out[key] = toJson(doc, kv[i + 1], depth - 1, budget, saw_handle);
      }
      return out;
    }
    case Kind::List:
    case Kind::Tuple:
    case Kind::Set: {
      nlohmann::json out = nlohmann::json::array();
      for (const Value& item : doc.items(v)) {
        if (budget == 0) {
          out.push_back("...");
          break;
        }
        out.push_back(toJson(doc, item, depth - 1, budget, saw_handle));
      }
      return out;
    }
    case Kind::Handle:
      saw_handle = true;
      return nullptr;
  }
  return nullptr;
}

}  // namespace

std::string toText(const Document& doc, const Value& value, int max_depth, bool* saw_handle) {
  if (value.kind == Kind::Str) return std::string(doc.str(value));
  size_t budget = kMaxNodes;
  bool handle = false;
  std::string text = dumpText(toJson(doc, value, max_depth, budget, handle));
  if (saw_handle) *saw_handle = handle;
  return text;
}

}  // namespace sawtooth::pickle
