// `kbctl compare OP --baseline OLD --variants NEW [--repeat N]` (issue 26): OLD and NEW timed in
// the same jobs, N pairs on N placements, and the paired verdict over them, printed with the
// job report and honouring --fail-on.
#pragma once

#include <set>
#include <string>

#include "absl/status/status.h"
#include "client/session.h"
#include "client/spec_options.h"
#include "common/stats/paired_verdict.h"
#include "kbench/v1/history.pb.h"

namespace kbench::client {

// The pairs an A/B takes when --repeat is not given.
inline constexpr int kDefaultPairs = 8;

// kbenchd's job ids are "j-" and 16 lower-case hex digits: `--baseline` given one compares with
// that earlier job (as kbctl diff); anything else names the baseline variant of an A/B.
bool IsJobId(const std::string& text);

struct PairedCompareOptions {
  std::string baseline;  // a catalogue variant or a registered @name
  int pairs = kDefaultPairs;
  double min_effect_percent = 3.0;
  std::set<v1::Verdict> fail_on;
};

// Runs the A/B the flags describe (their one variant, or their user kernel, is the candidate),
// prints the jobs and the verdict (-o json: the A/B document alone), and returns the jobs'
// outcome, then the --fail-on status.
absl::Status RunPairedCompare(Session& session, const SpecFlags& flags,
                              const PairedCompareOptions& options);

// A CheckFailedError (exit 1) naming `what` when `verdict` is one of `fail_on`; OK otherwise.
absl::Status ApplyPairedFailOn(analysis::Verdict verdict, const std::set<v1::Verdict>& fail_on,
                               const std::string& what);

}  // namespace kbench::client
