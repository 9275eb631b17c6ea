// `kbctl diff A B --explain`: after the verdicts, profile both sides of each FASTER or SLOWER
// pair (every pair with --explain-all) and print what changed between their kernels.
#pragma once

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/session.h"
#include "kbench/v1/explain.pb.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client::explain {

enum class ExplainScope {
  kNone,     // no --explain
  kChanged,  // --explain: pairs whose verdict is FASTER or SLOWER
  kAll,      // --explain-all: every pair
};

struct ExplainFlags {
  bool changed = false;
  bool all = false;
  ExplainScope scope() const;
};

// Adds --explain and --explain-all.
void AddExplainFlags(CLI::App* cmd, ExplainFlags* flags);

// Prints the comparison and the explanation of each pair in scope: the verdict table then the
// findings, or one ExplainedComparison with -o json. A pair that could not be profiled (a cpu
// device, a failed job) is explained by what was not measured; the status is an error only when
// kbenchd could not be reached. The exit code stays the verdicts' (--fail-on). Returns what it
// printed, for `kbctl diff -f FILE`'s page.
absl::StatusOr<v1::ExplainedComparison> ReportExplained(Session& session, const v1::Job& baseline,
                                                        const v1::Job& candidate,
                                                        const v1::JobComparison& comparison,
                                                        ExplainScope scope);

}  // namespace kbench::client::explain
