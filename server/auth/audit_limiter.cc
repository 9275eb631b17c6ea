// Rate-limited audit lines for authentication failures (see audit_limiter.h).
#include "server/auth/audit_limiter.h"

#include "absl/strings/match.h"

namespace kbench::auth {

std::string PeerHost(absl::string_view peer) {
  if (!absl::StartsWith(peer, "ipv4:") && !absl::StartsWith(peer, "ipv6:")) {
    return std::string(peer);
  }
  const size_t colon = peer.rfind(':');
  // "ipv4:" itself ends at index 4: a peer without a port stays whole.
  return std::string(colon > 4 ? peer.substr(0, colon) : peer);
}

std::optional<int64_t> AuditLimiter::Admit(absl::string_view peer) {
  const absl::Time now = now_();
  const std::string host = PeerHost(peer);
  absl::MutexLock lock(&mu_);
  if (now - window_start_ >= options_.interval) {
    window_start_ = now;
    lines_in_window_ = 0;
  }
  auto it = peers_.find(host);
  if (it == peers_.end()) {
    if (peers_.size() >= options_.max_peers) ForgetQuietPeers(now);
    it = peers_.emplace(host, PeerState{}).first;
  }
  PeerState& state = it->second;
  if (now - state.last_line < options_.interval || lines_in_window_ >= options_.burst) {
    ++state.suppressed;
    return std::nullopt;
  }
  ++lines_in_window_;
  state.last_line = now;
  const int64_t suppressed = state.suppressed;
  state.suppressed = 0;
  return suppressed;
}

void AuditLimiter::ForgetQuietPeers(absl::Time now) {
  // A forgotten peer's unwritten count is lost; the metric still has it.
  for (auto it = peers_.begin(); it != peers_.end();) {
    it = now - it->second.last_line >= options_.interval ? peers_.erase(it) : std::next(it);
  }
  // Every peer spoke within the interval: drop them all rather than grow without bound.
  if (peers_.size() >= options_.max_peers) peers_.clear();
}

}  // namespace kbench::auth
