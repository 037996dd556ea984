#include "core/analysis/short_labels.h"

#include <cctype>
#include <vector>

namespace sawtooth {
namespace {

constexpr std::string_view kEllipsis = "…";

size_t codePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The last `keep` code points of `s`.
std::string_view lastCodePoints(std::string_view s, size_t keep) {
  size_t at = s.size(), kept = 0;
  while (at > 0 && kept < keep) {
    --at;
    if ((static_cast<unsigned char>(s[at]) & 0xC0) != 0x80) ++kept;
  }
  return s.substr(at);
}

// "train.py:42" (a file, a colon, digits): the location a SiteNamer label starts with.
bool isLocation(std::string_view token) {
  const size_t colon = token.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == token.size()) return false;
  for (char c : token.substr(colon + 1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

void eraseAll(std::string& s, std::string_view what) {
  for (size_t at; (at = s.find(what)) != std::string::npos;) s.erase(at, what.size());
}

}  // namespace

std::string functionName(std::string_view signature) {
  std::string s(signature);
  eraseAll(s, "(anonymous namespace)::");
  // Template arguments, balanced (an operator< or operator<< is left alone).
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool op = i >= 8 && s.compare(i - 8, 8, "operator") == 0;
    if (c == '<' && !op)
      ++depth;
    else if (c == '>' && depth > 0)
      --depth;
    else if (depth == 0)
      out += c;
  }
  // Not a signature without a parameter list ("forward", "(no stack)"): as it is.
  const size_t open = out.find('(');
  if (open == std::string::npos || open == 0) return std::string(signature);
  // The parameter list and whatever follows it (const, a lambda's "::{lambda()#1}").
  out.resize(open);
  // The return type: everything up to the last space.
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (const size_t space = out.rfind(' '); space != std::string::npos) out.erase(0, space + 1);
  return out.empty() ? std::string(signature) : out;
}

std::string compactSiteLabel(std::string_view label, size_t max_chars) {
  std::string location;
  std::string_view function = label;
  if (const size_t space = label.find(' '); space != std::string_view::npos && isLocation(label.substr(0, space))) {
    location = std::string(label.substr(0, space));
    function = label.substr(space + 1);
  }
  std::string name = functionName(function);
  auto joined = [&] { return location.empty() ? name : location + " " + name; };
  if (codePoints(joined()) <= max_chars) return joined();
  // The location's folders first, then the name's leading namespaces.
  if (const size_t slash = location.rfind('/'); slash != std::string::npos)
    location = std::string(kEllipsis) + location.substr(slash + 1);
  if (codePoints(joined()) <= max_chars) return joined();
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t sep = name.find("::", start);
    parts.push_back(name.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
    if (sep == std::string::npos) break;
    start = sep + 2;
  }
  for (size_t drop = 1; drop < parts.size(); ++drop) {
    std::string shorter(kEllipsis);
    for (size_t p = drop; p < parts.size(); ++p) shorter += (p > drop ? "::" : "") + parts[p];
    name = shorter;
    if (codePoints(joined()) <= max_chars) return joined();
  }
  const std::string all = joined();
  if (max_chars == 0) return {};
  return std::string(kEllipsis) + std::string(lastCodePoints(all, max_chars - 1));
}

std::string compactCommand(std::string_view command, size_t max_chars) {
  std::string out;
  for (size_t start = 0; start <= command.size();) {
    size_t end = command.find(' ', start);
    if (end == std::string_view::npos) end = command.size();
    std::string_view token = command.substr(start, end - start);
    // A path (not an option's value after '='): its last part.
    if (token.find('/') != std::string_view::npos && token.find('=') == std::string_view::npos && token.back() != '/')
      token = token.substr(token.rfind('/') + 1);
    if (!out.empty()) out += ' ';
    out += token;
    start = end + 1;
  }
  if (codePoints(out) <= max_chars || max_chars == 0) return max_chars == 0 ? std::string() : out;
  // The first max_chars − 1 code points, then "…".
  size_t at = 0, kept = 0;
  while (at < out.size() && kept < max_chars - 1) {
    ++at;
    while (at < out.size() && (static_cast<unsigned char>(out[at]) & 0xC0) == 0x80) ++at;
    ++kept;
  }
  return out.substr(0, at) + std::string(kEllipsis);
}

}  // namespace sawtooth
