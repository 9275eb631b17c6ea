// kbctl's retry of a submit refused while kbenchd restarts: a draining daemon answers
// UNAVAILABLE ("shutting down; retry"), and so does one not listening yet. A submit with an
// idempotency key is safe to send again (kbenchd returns the job the key created, never a
// second), so kbctl sends it again after a back-off, saying so on stderr; a submit without a key
// is not retried, since an UNAVAILABLE can also follow a submit that was stored.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/session.h"

namespace kbench::client {

struct SubmitRetryPolicy {
  int attempts = 10;  // the first included
  // Doubling from the first to the cap: up to about 28 s in all, a default drain (10 s,
  // kbenchd's --drain-seconds) and a start with room to spare.
  absl::Duration first_backoff = absl::Milliseconds(250);
  absl::Duration max_backoff = absl::Seconds(4);
};

// The wait before attempt `attempt` (2 for the first retry).
absl::Duration SubmitBackoff(const SubmitRetryPolicy& policy, int attempt);
// The stderr line before attempt `attempt`, after `refused`.
std::string SubmitRetryNote(const absl::Status& refused, const std::string& idempotency_key,
                            absl::Duration wait, int attempt, int attempts);

// `submit`'s answer; with an `idempotency_key`, the first that is not UNAVAILABLE, trying at
// most `policy.attempts` times.
template <typename Response>
absl::StatusOr<Response> SubmitRetryingUnavailable(
    const Session& session, const std::string& idempotency_key,
    const std::function<absl::StatusOr<Response>()>& submit, const SubmitRetryPolicy& policy = {}) {
  absl::StatusOr<Response> answer = submit();
  for (int attempt = 2; !idempotency_key.empty() && attempt <= policy.attempts &&
                        answer.status().code() == absl::StatusCode::kUnavailable;
       ++attempt) {
    const absl::Duration wait = SubmitBackoff(policy, attempt);
    session.Note(SubmitRetryNote(answer.status(), idempotency_key, wait, attempt, policy.attempts));
    session.Sleep(wait);
    answer = submit();
  }
  return answer;
}

}  // namespace kbench::client
