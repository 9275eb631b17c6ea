// Launch expressions of user kernels: parsing, evaluation and the errors a user sees.
#include "kernels/launch_expr.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kbench::kernels {
namespace {

const std::vector<std::string> kNames = {"rows", "cols"};
const std::map<std::string, int64_t> kValues = {{"rows", 4096}, {"cols", 1000}};

int64_t Eval(const std::string& text) {
  absl::StatusOr<LaunchExpr> e = LaunchExpr::Parse(text, kNames);
  EXPECT_TRUE(e.ok()) << e.status();
  absl::StatusOr<int64_t> v = e->Evaluate(kValues);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.value_or(-1);
}

std::string ParseError(const std::string& text) {
  absl::StatusOr<LaunchExpr> e = LaunchExpr::Parse(text, kNames);
  EXPECT_FALSE(e.ok()) << text;
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(e.status().message());
}

std::string EvalError(const std::string& text,
                      const std::map<std::string, int64_t>& values = kValues) {
  absl::StatusOr<LaunchExpr> e = LaunchExpr::Parse(text, kNames);
  EXPECT_TRUE(e.ok()) << e.status();
  absl::StatusOr<int64_t> v = e->Evaluate(values);
  EXPECT_FALSE(v.ok()) << text << " = " << v.value_or(0);
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(v.status().message());
}

TEST(LaunchExpr, EvaluatesNamesNumbersAndPrecedence) {
  EXPECT_EQ(Eval("rows"), 4096);
  EXPECT_EQ(Eval("256"), 256);
  EXPECT_EQ(Eval("rows + cols * 2"), 4096 + 2000);
  EXPECT_EQ(Eval("(rows + cols) * 2"), (4096 + 1000) * 2);
  EXPECT_EQ(Eval("rows - cols - 1"), 4096 - 1000 - 1);  // left-associative
  EXPECT_EQ(Eval("rows / 3 / 2"), 4096 / 3 / 2);
  EXPECT_EQ(Eval("cols % 7"), 1000 % 7);
  EXPECT_EQ(Eval("-cols + 5"), -995);
  EXPECT_EQ(Eval("  rows*cols  "), 4096000);
}

TEST(LaunchExpr, EvaluatesFunctions) {
  EXPECT_EQ(Eval("cdiv(cols, 256)"), 4);
  EXPECT_EQ(Eval("cdiv(1024, 256)"), 4);
  EXPECT_EQ(Eval("cdiv(1, 256)"), 1);
  EXPECT_EQ(Eval("min(cols, 1024)"), 1000);
  EXPECT_EQ(Eval("max(cols, 1024)"), 1024);
  EXPECT_EQ(Eval("cdiv(rows * cols, max(32, min(cols, 512)))"), 8000);
}

TEST(LaunchExpr, UnknownNameNamesPositionAndKnownNames) {
  const std::string m = ParseError("cdiv(rowz, 4)");
  EXPECT_NE(m.find("position 6"), std::string::npos) << m;
  EXPECT_NE(m.find("'rowz'"), std::string::npos) << m;
  EXPECT_NE(m.find("rows, cols"), std::string::npos) << m;
}

TEST(LaunchExpr, SyntaxErrorsNamePosition) {
  EXPECT_NE(ParseError("rows +").find("text ended"), std::string::npos);
  EXPECT_NE(ParseError("rows + * 2").find("position 8"), std::string::npos);
  EXPECT_NE(ParseError("(rows").find("expected ')'"), std::string::npos);
  EXPECT_NE(ParseError("rows 4").find("position 6"), std::string::npos);
  EXPECT_NE(ParseError("pow(rows, 2)").find("unknown function 'pow'"), std::string::npos);
  EXPECT_NE(ParseError("min(rows)").find("expected ','"), std::string::npos);
  EXPECT_NE(ParseError("rows; rm -rf").find("unexpected ';'"), std::string::npos);
  EXPECT_NE(ParseError("").find("empty"), std::string::npos);
  EXPECT_NE(ParseError("99999999999999999999").find("overflows"), std::string::npos);
  EXPECT_NE(ParseError(std::string(200, '(') + "1" + std::string(200, ')')).find("deeply"),
            std::string::npos);
}

TEST(LaunchExpr, DivisionByZeroIsAnError) {
  EXPECT_NE(EvalError("rows / (cols - 1000)").find("division by zero"), std::string::npos);
  EXPECT_NE(EvalError("rows % 0").find("division by zero"), std::string::npos);
  EXPECT_NE(EvalError("cdiv(rows, cols - 1000)").find("positive divisor"), std::string::npos);
}

TEST(LaunchExpr, OverflowIsAnError) {
  const std::map<std::string, int64_t> big = {{"rows", int64_t{1} << 40}, {"cols", 1 << 30}};
  EXPECT_NE(EvalError("rows * cols", big).find("'*' overflows"), std::string::npos);
  const std::map<std::string, int64_t> max = {{"rows", std::numeric_limits<int64_t>::max()},
                                              {"cols", 1}};
  EXPECT_NE(EvalError("rows + cols", max).find("'+' overflows"), std::string::npos);
  // cdiv of the largest value does not overflow (it is not computed as (a + b - 1) / b).
  absl::StatusOr<int64_t> v = EvaluateLaunchExpr("grid", "cdiv(rows, 2)", max);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, std::numeric_limits<int64_t>::max() / 2 + 1);
}

TEST(LaunchExpr, EvaluateLaunchExprNamesTheField) {
  absl::StatusOr<int64_t> v = EvaluateLaunchExpr("launch.grid[0]", "rows / 0", kValues);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("launch.grid[0]: 'rows / 0': at position 6"),
            std::string::npos)
      << v.status();
}

}  // namespace
}  // namespace kbench::kernels
