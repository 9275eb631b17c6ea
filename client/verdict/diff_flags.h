// The flags a verdict takes (`--fail-on`, `--min-effect`), shared by `kbctl diff` and
// `kbctl bench/compare --baseline JOB`, and the step both end with.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/explain/explain_diff.h"
#include "client/session.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

struct VerdictFlags {
  std::string fail_on;
  std::string min_effect;
  // Leave the key's history out of the default minimum effect (history_noise.h).
  bool no_history_noise = false;
  // `kbctl diff --explain` (client/explain/): `kbctl diff` only.
  explain::ExplainFlags explain;
  // `kbctl diff -f FILE`: also write the verdicts (and explanations) as an HTML page.
  std::string report_file;
};

absl::Status AddVerdictFlags(CLI::App* cmd, VerdictFlags* flags);

// A usage error for a bad --fail-on or --min-effect (checked before anything is sent).
absl::Status CheckVerdictFlags(const VerdictFlags& flags);

// The verdicts of `candidate` against `baseline` (with the key's history noise unless
// --no-history-noise); an error that exits 1 when the jobs cannot be compared.
absl::StatusOr<v1::JobComparison> CompareForVerdict(Session& session, const v1::Job& baseline,
                                                    const v1::Job& candidate,
                                                    const VerdictFlags& flags);

// Compares `candidate` with `baseline`, prints the verdicts (table or JSON), writes the page
// -f asked for, and returns the --fail-on status.
absl::Status CompareAndReport(Session& session, const v1::Job& baseline, const v1::Job& candidate,
                              const VerdictFlags& flags);

}  // namespace kbench::client
