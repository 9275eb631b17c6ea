// A recursive-descent parser and an overflow-checked evaluator for launch expressions.
#include "kernels/launch_expr.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace kbench::kernels {

struct LaunchExpr::Node {
  enum class Kind { kNumber, kName, kNeg, kAdd, kSub, kMul, kDiv, kMod, kCdiv, kMin, kMax };
  Kind kind = Kind::kNumber;
  int64_t number = 0;
  std::string name;
  size_t position = 0;  // 1-based, for evaluation errors
  std::shared_ptr<const Node> left, right;
};

namespace {

using Node = LaunchExpr::Node;
using NodePtr = std::shared_ptr<const Node>;

// Expressions are short; deeper nesting than this is a malicious or broken request.
constexpr int kMaxDepth = 64;
constexpr size_t kMaxLength = 512;

class Parser {
 public:
  Parser(absl::string_view text, const std::vector<std::string>& names)
      : text_(text), names_(names) {}

  absl::StatusOr<NodePtr> ParseAll() {
    KBENCH_ASSIGN_OR_RETURN(NodePtr root, Expr(0));
    SkipSpace();
    if (pos_ < text_.size()) return Error(absl::StrCat("unexpected '", text_.substr(pos_, 1), "'"));
    return root;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("at position ", pos_ + 1, ": ", what));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static NodePtr Binary(Node::Kind kind, NodePtr l, NodePtr r, size_t position) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->left = std::move(l);
    n->right = std::move(r);
    n->position = position;
    return n;
  }

  absl::StatusOr<NodePtr> Expr(int depth) {
    if (depth > kMaxDepth) return Error("expression nested too deeply");
    KBENCH_ASSIGN_OR_RETURN(NodePtr left, Term(depth));
    while (true) {
      const size_t at = pos_ + 1;
      Node::Kind kind;
      if (Accept('+')) {
        kind = Node::Kind::kAdd;
      } else if (Accept('-')) {
        kind = Node::Kind::kSub;
      } else {
        return left;
      }
      KBENCH_ASSIGN_OR_RETURN(NodePtr right, Term(depth));
      left = Binary(kind, std::move(left), std::move(right), at);
    }
  }

  absl::StatusOr<NodePtr> Term(int depth) {
    KBENCH_ASSIGN_OR_RETURN(NodePtr left, Unary(depth));
    while (true) {
      SkipSpace();
      const size_t at = pos_ + 1;
      Node::Kind kind;
      if (Accept('*')) {
        kind = Node::Kind::kMul;
      } else if (Accept('/')) {
        kind = Node::Kind::kDiv;
      } else if (Accept('%')) {
        kind = Node::Kind::kMod;
      } else {
        return left;
      }
      KBENCH_ASSIGN_OR_RETURN(NodePtr right, Unary(depth));
      left = Binary(kind, std::move(left), std::move(right), at);
    }
  }

  absl::StatusOr<NodePtr> Unary(int depth) {
    if (depth > kMaxDepth) return Error("expression nested too deeply");
    SkipSpace();
    const size_t at = pos_ + 1;
    if (Accept('-')) {
      KBENCH_ASSIGN_OR_RETURN(NodePtr operand, Unary(depth + 1));
      return Binary(Node::Kind::kNeg, std::move(operand), nullptr, at);
    }
    return Primary(depth);
  }

  absl::StatusOr<NodePtr> Primary(int depth) {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a number, a name or '(' but the text ended");
    const char c = text_[pos_];
    if (Accept('(')) {
      KBENCH_ASSIGN_OR_RETURN(NodePtr inner, Expr(depth + 1));
      if (!Accept(')')) return Error("expected ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return Number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return NameOrCall(depth);
    return Error(absl::StrCat("unexpected '", text_.substr(pos_, 1), "'"));
  }

  absl::StatusOr<NodePtr> Number() {
    auto n = std::make_shared<Node>();
    n->position = pos_ + 1;
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text_[pos_] - '0', &value)) {
        return Error("integer literal overflows int64");
      }
      ++pos_;
    }
    n->number = value;
    return NodePtr(n);
  }

  absl::StatusOr<NodePtr> NameOrCall(int depth) {
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string word(text_.substr(start, pos_ - start));
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') return Call(word, start, depth);
    if (std::find(names_.begin(), names_.end(), word) == names_.end()) {
      pos_ = start;
      return Error(absl::StrCat("unknown name '", word,
                                "' (known: ", names_.empty() ? "none" : absl::StrJoin(names_, ", "),
                                "; functions: cdiv, min, max)"));
    }
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::kName;
    n->name = word;
    n->position = start + 1;
    return NodePtr(n);
  }

  absl::StatusOr<NodePtr> Call(const std::string& function, size_t start, int depth) {
    Node::Kind kind;
    if (function == "cdiv") {
      kind = Node::Kind::kCdiv;
    } else if (function == "min") {
      kind = Node::Kind::kMin;
    } else if (function == "max") {
      kind = Node::Kind::kMax;
    } else {
      pos_ = start;
      return Error(absl::StrCat("unknown function '", function, "' (known: cdiv, min, max)"));
    }
    Accept('(');
    KBENCH_ASSIGN_OR_RETURN(NodePtr a, Expr(depth + 1));
    if (!Accept(',')) return Error(absl::StrCat("expected ',' in ", function, "(a, b)"));
    KBENCH_ASSIGN_OR_RETURN(NodePtr b, Expr(depth + 1));
    if (!Accept(')')) return Error(absl::StrCat("expected ')' closing ", function, "("));
    return Binary(kind, std::move(a), std::move(b), start + 1);
  }

  absl::string_view text_;
  const std::vector<std::string>& names_;
  size_t pos_ = 0;
};

absl::Status EvalError(const Node& n, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("at position ", n.position, ": ", what));
}

absl::StatusOr<int64_t> Eval(const Node& n, const std::map<std::string, int64_t>& values) {
  using K = Node::Kind;
  if (n.kind == K::kNumber) return n.number;
  if (n.kind == K::kName) {
    const auto it = values.find(n.name);
    if (it == values.end()) return EvalError(n, absl::StrCat("'", n.name, "' has no value"));
    return it->second;
  }
  KBENCH_ASSIGN_OR_RETURN(const int64_t a, Eval(*n.left, values));
  if (n.kind == K::kNeg) {
    if (a == INT64_MIN) return EvalError(n, "negation overflows int64");
    return -a;
  }
  KBENCH_ASSIGN_OR_RETURN(const int64_t b, Eval(*n.right, values));
  int64_t r = 0;
  switch (n.kind) {
    case K::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return EvalError(n, "'+' overflows int64");
      return r;
    case K::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return EvalError(n, "'-' overflows int64");
      return r;
    case K::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return EvalError(n, "'*' overflows int64");
      return r;
    case K::kDiv:
    case K::kMod:
      if (b == 0) return EvalError(n, "division by zero");
      if (a == INT64_MIN && b == -1) return EvalError(n, "division overflows int64");
      return n.kind == K::kDiv ? a / b : a % b;
    case K::kCdiv:
      if (b <= 0) return EvalError(n, absl::StrCat("cdiv by ", b, " (needs a positive divisor)"));
      if (a <= 0) return a / b;
      return (a - 1) / b + 1;  // no overflow, unlike (a + b - 1) / b
    case K::kMin:
      return std::min(a, b);
    case K::kMax:
      return std::max(a, b);
    default:
      break;
  }
  return EvalError(n, "internal: unknown node");
}

}  // namespace

absl::StatusOr<LaunchExpr> LaunchExpr::Parse(absl::string_view text,
                                             const std::vector<std::string>& names) {
  if (text.size() > kMaxLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("expression is ", text.size(), " characters long; at most ", kMaxLength));
  }
  if (text.find_first_not_of(" \t") == absl::string_view::npos) {
    return absl::InvalidArgumentError("expression is empty");
  }
  Parser parser(text, names);
  KBENCH_ASSIGN_OR_RETURN(NodePtr root, parser.ParseAll());
  LaunchExpr e;
  e.text_ = std::string(text);
  e.root_ = std::move(root);
  return e;
}

absl::StatusOr<int64_t> LaunchExpr::Evaluate(const std::map<std::string, int64_t>& values) const {
  return Eval(*root_, values);
}

absl::StatusOr<int64_t> EvaluateLaunchExpr(absl::string_view field, absl::string_view text,
                                           const std::map<std::string, int64_t>& values) {
  std::vector<std::string> names;
  for (const auto& [name, value] : values) names.push_back(name);
  absl::StatusOr<LaunchExpr> e = LaunchExpr::Parse(text, names);
  absl::StatusOr<int64_t> v = e.ok() ? e->Evaluate(values) : e.status();
  if (v.ok()) return v;
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": '", text.substr(0, 80), "': ", v.status().message()));
}

}  // namespace kbench::kernels
