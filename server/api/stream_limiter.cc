// Stream caps (stream_limiter.h).
#include "server/api/stream_limiter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/api/request_limits.h"

namespace kbench::api {

std::string PeerHost(const grpc::CallbackServerContext& context) {
  std::string peer = context.peer();
  // "unix:/path" has no port; "ipv4:a.b.c.d:port" and "ipv6:[::1]:port" end with one.
  if (peer.rfind("ipv4:", 0) != 0 && peer.rfind("ipv6:", 0) != 0) return peer;
  const size_t colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

StreamSlot::StreamSlot(StreamSlot&& other) noexcept
    : limiter_(std::exchange(other.limiter_, nullptr)), identity_(std::move(other.identity_)) {}

StreamSlot& StreamSlot::operator=(StreamSlot&& other) noexcept {
  if (this != &other) {
    Release();
    limiter_ = std::exchange(other.limiter_, nullptr);
    identity_ = std::move(other.identity_);
  }
  return *this;
}

StreamSlot::~StreamSlot() { Release(); }

void StreamSlot::Release() {
  if (limiter_ != nullptr) std::exchange(limiter_, nullptr)->Release(identity_);
}

absl::StatusOr<StreamSlot> StreamLimiter::Acquire(const std::string& identity) {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_ >= max_total_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("streams: ", open_, " streams are open, the server's limit (--max-streams ",
                     max_total_, "); retry later"));
  }
  auto it = per_identity_.find(identity);
  const int64_t mine = it == per_identity_.end() ? 0 : it->second;
  if (mine >= max_per_identity_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("streams: ", QuotePrefix(identity), " has ", mine,
                     " streams open, the limit per caller (--max-streams-per-identity ",
                     max_per_identity_, "); close some first"));
  }
  ++per_identity_[identity];
  ++open_;
  return StreamSlot(this, identity);
}

void StreamLimiter::Release(const std::string& identity) {
  std::lock_guard<std::mutex> lock(mu_);
  --open_;
  auto it = per_identity_.find(identity);
  if (it != per_identity_.end() && --it->second <= 0) per_identity_.erase(it);
}

int64_t StreamLimiter::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

int64_t StreamLimiter::open_for(const std::string& identity) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = per_identity_.find(identity);
  return it == per_identity_.end() ? 0 : it->second;
}

}  // namespace kbench::api
