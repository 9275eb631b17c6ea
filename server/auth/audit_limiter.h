// Bounds the audit lines that unauthenticated callers can make kbenchd write: a flood of bad
// tokens once wrote one WARN line each (10,000 lines in 2 s, issue 24). At most one line per
// peer host per interval, and at most `burst` lines per interval in all (a flood from many
// addresses); the next line a peer gets says how many of its failures went unwritten. The
// failure metric (kbench_auth_failures_total) still counts every failure.
// Time comes from a function, so tests drive it (kbench_auth does not depend on the scheduler's
// Clock). Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kbench::auth {

struct AuditLimiterOptions {
  absl::Duration interval = absl::Seconds(1);
  int burst = 10;            // lines per interval over all peers
  size_t max_peers = 10000;  // peers remembered; beyond, the quiet ones are forgotten
};

class AuditLimiter {
 public:
  using Now = std::function<absl::Time()>;
  using Options = AuditLimiterOptions;

  explicit AuditLimiter(
      Options options = {}, Now now = [] { return absl::Now(); })
      : options_(options), now_(std::move(now)) {}

  // Whether to write a line for a failure from `peer` (gRPC's peer string; its port is
  // ignored, since each connection has a new one). When it is written, the value is the number
  // of this peer's failures that went unwritten since its last line.
  std::optional<int64_t> Admit(absl::string_view peer);

 private:
  struct PeerState {
    absl::Time last_line = absl::InfinitePast();
    int64_t suppressed = 0;
  };
  void ForgetQuietPeers(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Options options_;
  const Now now_;
  absl::Mutex mu_;
  std::map<std::string, PeerState, std::less<>> peers_ ABSL_GUARDED_BY(mu_);
  absl::Time window_start_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int lines_in_window_ ABSL_GUARDED_BY(mu_) = 0;
};

// The host part of a gRPC peer string: "ipv4:10.0.0.7:51234" -> "ipv4:10.0.0.7",
// "ipv6:[::1]:5" -> "ipv6:[::1]"; others ("unix:...", "fd:7") unchanged.
std::string PeerHost(absl::string_view peer);

}  // namespace kbench::auth
