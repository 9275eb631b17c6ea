// `--fail-on VERDICTS`: which verdicts make kbctl exit non-zero (for CI pipelines).
#pragma once

#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/history.pb.h"

namespace kbench::client {

// "slower", "slower,unsure", ... (case-insensitive); empty: none. A usage error naming the
// word otherwise.
absl::StatusOr<std::set<v1::Verdict>> ParseFailOn(const std::string& text);

// A CheckFailedError (exit 1) naming each variant whose verdict (corrected for the family of
// variants compared: VariantComparison.verdict) is in `fail_on`; OK otherwise.
absl::Status ApplyFailOn(const v1::JobComparison& comparison, const std::set<v1::Verdict>& fail_on);

}  // namespace kbench::client
