// Back-off and wording of kbctl's submit retries (see submit_retry.h).
#include "client/submit_retry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace kbench::client {

absl::Duration SubmitBackoff(const SubmitRetryPolicy& policy, int attempt) {
  absl::Duration wait = policy.first_backoff;
  for (int i = 2; i < attempt && wait < policy.max_backoff; ++i) wait *= 2;
  return std::min(wait, policy.max_backoff);
}

std::string SubmitRetryNote(const absl::Status& refused, const std::string& idempotency_key,
                            absl::Duration wait, int attempt, int attempts) {
  return absl::StrCat("kbctl: ", refused.message(), "; submitting again with idempotency key \"",
                      idempotency_key, "\" in ", absl::FormatDuration(wait), " (attempt ", attempt,
                      " of ", attempts, ")");
}

}  // namespace kbench::client
