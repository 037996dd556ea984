#include "core/analysis/python_line.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace sawtooth {
namespace {

struct Token {
  enum Kind { Name, Number, String, Op, End } kind = End;
  std::string_view text;
};

// Python's tokens, as far as an expression on one line needs them; nullopt for anything else.
std::optional<std::vector<Token>> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (c == '#') {
      break;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i;
      while (j < s.size() && (word(s[j]) || s[j] == '.' ||
                              ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      out.push_back({Token::Number, s.substr(i, j - i)});
      i = j;
    } else if (word(c)) {
      size_t j = i;
      while (j < s.size() && word(s[j])) ++j;
      out.push_back({Token::Name, s.substr(i, j - i)});
      i = j;
    } else if (c == '"' || c == '\'') {
      const size_t end = s.find(c, i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      out.push_back({Token::String, s.substr(i, end + 1 - i)});
      i = end + 1;
    } else {
      static constexpr std::string_view kOps[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%",
                                                  "@", "(", ")", "[", "]", ",", ".", "=", ":", "<", ">"};
      const auto op = std::find_if(std::begin(kOps), std::end(kOps), [&](std::string_view o) { return s.substr(i).starts_with(o); });
      if (op == std::end(kOps)) return std::nullopt;
      out.push_back({Token::Op, *op});
      i += op->size();
    }
  }
  out.push_back({});
  return out;
}

bool isNamespace(std::string_view name) {
  return name == "torch" || name == "math" || name == "np" || name == "numpy" || name == "F" || name == "nn";
}

// Methods that return a view (or a number) and allocate nothing.
bool isViewMethod(std::string_view name) {
  static constexpr std::string_view kViews[] = {
      "view", "view_as", "reshape", "transpose", "permute", "unsqueeze", "squeeze", "expand", "expand_as", "t",
      "narrow", "select", "chunk", "split", "unbind", "flatten", "unflatten", "detach", "size", "dim", "numel",
      "item", "contiguous", "type_as", "to"};
  return std::find(std::begin(kViews), std::end(kViews), name) != std::end(kViews);
}

// A value while the line is evaluated: a tensor, a Python number, or a name of a namespace
// (torch, torch.nn.functional, math) whose attributes are functions or constants.
// `self` is an object: its attributes are tensors or numbers (self.weight, self.eps), its methods
// the program's own (self.act(x)).
struct Value {
  enum Kind { Tensor, Scalar, Space, Object } kind = Scalar;
  std::string_view space{};  // the namespace's root ("torch", "math", ...)
  std::string_view attr{};   // for an attribute of a namespace or a tensor: the last name, until called
  bool bound_to_tensor = false;
  bool object_method = false;  // self.NAME: a tensor when read, the program's method when called
};
Value of(Value::Kind kind) {
  Value v;
  v.kind = kind;
  return v;
}

// Evaluates in Python's order, recording each allocation (true: by a float32-list op).
class Evaluator {
 public:
  explicit Evaluator(const std::vector<Token>& t) : t_(t) {}
  std::vector<bool> allocs;
  std::string first_float32;  // the first float32-list op's name
  bool failed = false;

  void made(bool float32_op, std::string_view op) {
    allocs.push_back(float32_op);
    if (float32_op && first_float32.empty()) first_float32 = op;
  }

  std::optional<Value> statement() {
    // `return EXPR`, `NAME = EXPR`, `a, b = EXPR`, `self.x = EXPR`: the expression after the
    // assignment's `=` (a keyword's `=` is inside parentheses).
    size_t start = 0;
    if (t_[0].kind == Token::Name && t_[0].text == "return") start = 1;
    int depth = 0;
    for (size_t i = start; t_[i].kind != Token::End; ++i) {
      const std::string_view x = t_[i].text;
      if (t_[i].kind != Token::Op) continue;
      if (x == "(" || x == "[") ++depth;
      if (x == ")" || x == "]") --depth;
      if (x == "=" && depth == 0) {
        start = i + 1;
        break;
      }
    }
    pos_ = start;
    Value v = expr();
    if (t_[pos_].kind != Token::End) failed = true;
    return failed ? std::nullopt : std::optional<Value>(v);
  }

 private:
  const Token& peek() const { return t_[pos_]; }
  bool takeOp(std::string_view op) {
    if (peek().kind == Token::Op && peek().text == op) return ++pos_, true;
    return false;
  }
  Value fail() {
    failed = true;
    return {};
  }
  Value binary(const Value& a, const Value& b, bool float32_op) {
    if (a.kind == Value::Space || b.kind == Value::Space || a.kind == Value::Object || b.kind == Value::Object)
      return fail();
    if (a.kind != Value::Tensor && b.kind != Value::Tensor) return {};
    made(float32_op, "pow");
    return of(Value::Tensor);
  }

  // Nesting (parentheses, calls, unary minus) is bounded: a hostile line of 16 kB of '(' must not
  // exhaust the stack.
  static constexpr int kMaxDepth = 64;
  struct Nest {
    explicit Nest(int& depth) : depth_(depth) { ++depth_; }
    ~Nest() { --depth_; }
    int& depth_;
  };

  Value expr() {
    Nest nest(depth_);
    if (depth_ > kMaxDepth) return fail();
    Value v = term();
    while (!failed && peek().kind == Token::Op && (peek().text == "+" || peek().text == "-")) {
      ++pos_;
      Value rhs = term();
      v = binary(v, rhs, false);
    }
    return v;
  }
  Value term() {
    Value v = unary();
    while (!failed && peek().kind == Token::Op &&
           (peek().text == "*" || peek().text == "/" || peek().text == "//" || peek().text == "%" || peek().text == "@")) {
      ++pos_;
      Value rhs = unary();
      v = binary(v, rhs, false);
    }
    return v;
  }
  Value unary() {
    Nest nest(depth_);
    if (depth_ > kMaxDepth) return fail();
    if (takeOp("-")) {
      Value v = unary();
      if (v.kind == Value::Tensor) allocs.push_back(false);
      return v;
    }
    if (takeOp("+")) return unary();
    Value base = postfix();
    if (!failed && takeOp("**")) {
      Value exponent = unary();
      return binary(base, exponent, true);  // __pow__ is on the float32 list
    }
    return base;
  }
  Value postfix() {
    Value v = atom();
    while (!failed) {
      if (takeOp(".")) {
        if (peek().kind != Token::Name) return fail();
        const std::string_view name = peek().text;
        ++pos_;
        if (v.kind == Value::Object) {
          v = of(Value::Tensor);  // self.weight: a tensor, unless called (a method of the program's)
          v.attr = name;
          v.object_method = true;
          continue;
        }
        if (v.kind == Value::Space) {
          v.attr = name;  // torch.nn.functional.x, math.pi: still the namespace's until called
          if (name == "float32" || name == "float" || name == "pi" || name == "e") v = of(Value::Scalar);
          continue;
        }
        if (v.attr.empty() && v.kind == Value::Tensor && !v.bound_to_tensor) {
          v.attr = name;
          v.bound_to_tensor = true;
        } else {
          // An attribute of an attribute (self.weight.data, x.shape[0]): taken as a tensor.
          v = of(Value::Tensor);
          v.attr = name;
          v.bound_to_tensor = true;
        }
      } else if (takeOp("(")) {
        bool tensor_arg = false;
        bool float32_arg = false;
        if (!arguments(tensor_arg, float32_arg)) return fail();
        if (v.kind == Value::Space) {
          if (v.space == "math") {
            v = of(Value::Scalar);
          } else if (v.attr.empty()) {
            return fail();
          } else {
            made(isFloat32ListOp(v.attr), v.attr);
            v = of(Value::Tensor);
          }
        } else if (v.object_method) {
          return fail();  // the program's own method or a module: its blocks are other lines'
        } else if (v.kind == Value::Tensor && v.bound_to_tensor) {
          const std::string_view method = v.attr;
          if (method == "float" || (method == "to" && float32_arg)) {
            made(true, "float");
          } else if (isFloat32ListOp(method)) {
            made(true, method);
          } else if (!isViewMethod(method)) {
            allocs.push_back(false);
          }
          v = of(Value::Tensor);
        } else {
          return fail();  // the program's own function or a module: its blocks are other lines'
        }
      } else if (takeOp("[")) {
        int depth = 1;
        while (depth > 0 && peek().kind != Token::End) {
          if (peek().kind == Token::Op && (peek().text == "[" || peek().text == "(")) ++depth;
          if (peek().kind == Token::Op && (peek().text == "]" || peek().text == ")")) --depth;
          ++pos_;
        }
        if (depth > 0) return fail();
        if (v.kind == Value::Space) return fail();
        v = of(v.kind);  // basic indexing: a view
      } else {
        break;
      }
    }
    if (v.kind == Value::Tensor && (v.bound_to_tensor || v.object_method)) v = of(Value::Tensor);  // read, not called
    return v;
  }
  // The arguments of a call, evaluated in order; keywords' values too.
  bool arguments(bool& tensor_arg, bool& float32_arg) {
    if (takeOp(")")) return true;
    while (!failed) {
      if (peek().kind == Token::Name && t_[pos_ + 1].kind == Token::Op && t_[pos_ + 1].text == "=") pos_ += 2;
      const size_t before = pos_;
      Value a = expr();
      for (size_t i = before; i < pos_; ++i)
        if (t_[i].kind == Token::Name && (t_[i].text == "float32" || t_[i].text == "float") && i > 0 &&
            t_[i - 1].text == "." && i > 1 && t_[i - 2].text == "torch")
          float32_arg = true;
      if (failed) return false;
      tensor_arg |= a.kind == Value::Tensor;
      if (takeOp(")")) return true;
      if (!takeOp(",")) return false;
      if (takeOp(")")) return true;
    }
    return false;
  }
  Value atom() {
    const Token& tok = peek();
    if (tok.kind == Token::Number || tok.kind == Token::String) return ++pos_, of(Value::Scalar);
    if (tok.kind == Token::Name) {
      ++pos_;
      if (isNamespace(tok.text)) {
        Value v = of(Value::Space);
        v.space = tok.text;
        return v;
      }
      if (tok.text == "True" || tok.text == "False" || tok.text == "None") return of(Value::Scalar);
      if (tok.text == "self" || tok.text == "cls") return of(Value::Object);
      return of(Value::Tensor);
    }
    if (takeOp("(")) {
      Value v = expr();
      while (!failed && takeOp(",")) {
        if (peek().kind == Token::Op && peek().text == ")") break;
        expr();
      }
      if (!takeOp(")")) return fail();
      return v;
    }
    return fail();
  }

  const std::vector<Token>& t_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

bool isFloat32ListOp(std::string_view name) {
  // PyTorch's "CUDA ops that can autocast to float32" (docs/amp.html), as methods, torch functions or
  // torch.nn.functional's.
  static constexpr std::string_view kOps[] = {
      "pow", "rsqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "reciprocal", "softplus", "cumsum",
      "cumprod", "prod", "sum", "norm", "erfinv", "acos", "asin", "cosh", "sinh", "tan", "dist", "cdist",
      "pdist", "renorm", "cosine_similarity", "layer_norm", "group_norm", "softmax", "log_softmax", "softmin",
      "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "kl_div", "normalize"};
  return std::find(std::begin(kOps), std::end(kOps), name) != std::end(kOps);
}

bool float32OpSavesItsInput(std::string_view name) {
  // Their backward formulas read the input (derivatives.yaml: pow's `self`, layer_norm's `input`);
  // exp, rsqrt, softmax, log_softmax read their result, sum and cumsum nothing.
  static constexpr std::string_view kOps[] = {"pow", "log", "log1p", "log2", "log10", "acos", "asin", "cosh",
                                              "sinh", "softplus", "norm", "dist", "cdist", "pdist", "prod",
                                              "cumprod", "renorm", "erfinv", "layer_norm", "group_norm", "normalize",
                                              "mse_loss", "l1_loss", "kl_div", "cosine_similarity"};
  return std::find(std::begin(kOps), std::end(kOps), name) != std::end(kOps);
}

std::optional<std::string> firstFloat32Op(std::string_view line) {
  const auto tokens = tokenize(line);
  if (!tokens || tokens->size() < 2) return std::nullopt;
  Evaluator e(*tokens);
  if (!e.statement() || e.first_float32.empty()) return std::nullopt;
  return e.first_float32;
}

std::optional<int> blocksBeforeFloat32Op(std::string_view line) {
  const auto tokens = tokenize(line);
  if (!tokens || tokens->size() < 2) return std::nullopt;
  Evaluator e(*tokens);
  if (!e.statement()) return std::nullopt;
  const auto first = std::find(e.allocs.begin(), e.allocs.end(), true);
  if (first == e.allocs.end()) return std::nullopt;
  return static_cast<int>(first - e.allocs.begin());
}

}  // namespace sawtooth
