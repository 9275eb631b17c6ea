// kbench's one family of status-propagation macros, spelled as Abseil's
// (absl/status/status_macros.h, absent from Debian 12's Abseil 20220623). Every part uses these;
// the CUDA, CUPTI, cuBLAS, NVRTC and SQLite checks build on KBENCH_RETURN_IF_ERROR.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define KBENCH_RETURN_IF_ERROR(expr)                                    \
  do {                                                                  \
    if (::absl::Status kbench_status_ = (expr); !kbench_status_.ok()) { \
      return kbench_status_;                                            \
    }                                                                   \
  } while (0)

// Evaluates `expr` (an absl::StatusOr<T>); returns its Status from the enclosing function when
// it is not OK, else moves its value into `lhs` (a declaration such as `auto x` or an lvalue).
#define KBENCH_ASSIGN_OR_RETURN(lhs, expr) \
  KBENCH_ASSIGN_OR_RETURN_IMPL_(KBENCH_STATUS_CONCAT_(kbench_statusor_, __LINE__), lhs, expr)

#define KBENCH_STATUS_CONCAT_INNER_(a, b) a##b
#define KBENCH_STATUS_CONCAT_(a, b) KBENCH_STATUS_CONCAT_INNER_(a, b)
// `statusor` names a variable and `lhs` may be a declaration (`auto x`): neither can be
// parenthesised, hence the NOLINT (bugprone-macro-parentheses).
// NOLINTBEGIN(bugprone-macro-parentheses)
#define KBENCH_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()
// NOLINTEND(bugprone-macro-parentheses)
