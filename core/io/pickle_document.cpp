#include "core/io/pickle_document.h"

#include "core/io/pickle_parser.h"

namespace sawtooth::pickle {

std::string_view kindName(Kind kind) {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::BigInt: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Set: return "set";
    case Kind::Handle: return "object";
  }
  return "?";
}

const Value* Document::get(const Value& dict, std::string_view key) const {
  if (dict.kind != Kind::Dict) return nullptr;
  auto kv = items(dict);
  for (size_t i = kv.size() & ~size_t{1}; i >= 2; i -= 2)
    if (kv[i - 2].kind == Kind::Str && str(kv[i - 2]) == key) return &kv[i - 1];
  return nullptr;
}

Result<Document> parse(std::string bytes, Progress* progress) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  const std::string_view view = *owner;
  return parse(std::move(owner), view, progress);
}

Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, Progress* progress) {
  ParseOptions options;
  options.progress = progress;
  return parse(std::move(owner), bytes, options);
}

Result<Document> parse(std::shared_ptr<const void> owner, std::string_view bytes, const ParseOptions& options) {
  ReadBudget local;
  ReadBudget& budget = options.budget ? *options.budget : local;
  Document doc;
  doc.owner_ = std::move(owner);
  doc.input_ = bytes;
  Parser parser(doc, options, budget);
  Status st = parser.run();
  if (!st) return st.error();
  if (options.progress) options.progress->report(1, 1);
  return doc;
}

}  // namespace sawtooth::pickle
