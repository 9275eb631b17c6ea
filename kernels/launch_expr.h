// Launch-configuration expressions of users' kernels (issue 10): integer arithmetic over an
// operation's dims and params, e.g. "cdiv(rows * cols, 256)" or "min(cols, 1024)". Parsed once
// at submit in kbenchd (plain C++, no CUDA) and evaluated in the executor for the job's shape.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kbench::kernels {

// A parsed expression. Grammar (C precedence, left-associative):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INTEGER | NAME | FUNC '(' expr ',' expr ')' | '(' expr ')'
//   FUNC    := cdiv | min | max          (cdiv(a, b) = ceil(a / b) for b > 0)
// Arithmetic is int64; overflow and division by zero are errors at evaluation.
class LaunchExpr {
 public:
  struct Node;

  // INVALID_ARGUMENT naming the 1-based character position and what was wrong (an unknown name
  // lists the known ones). `names` are the names the expression may use.
  static absl::StatusOr<LaunchExpr> Parse(absl::string_view text,
                                          const std::vector<std::string>& names);

  // INVALID_ARGUMENT on division by zero, overflow or a name without a value.
  absl::StatusOr<int64_t> Evaluate(const std::map<std::string, int64_t>& values) const;

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

// Parses and evaluates in one go, prefixing errors with `field` (e.g. "launch.grid[0]").
absl::StatusOr<int64_t> EvaluateLaunchExpr(absl::string_view field, absl::string_view text,
                                           const std::map<std::string, int64_t>& values);

}  // namespace kbench::kernels
