// The Unix socket's connections and their uids (see unix_peers.h).
#include "server/auth/unix_peers.h"

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace kbench::auth {

void UnixPeers::Accepted(int fd, uid_t uid) {
  absl::MutexLock lock(&mu_);
  uids_[fd] = uid;
}

std::optional<uid_t> UnixPeers::UidOf(const std::string& peer) const {
  absl::string_view number = peer;
  if (!absl::ConsumePrefix(&number, "fd:")) return std::nullopt;
  int fd = -1;
  if (!absl::SimpleAtoi(number, &fd)) return std::nullopt;
  absl::MutexLock lock(&mu_);
  const auto it = uids_.find(fd);
  if (it == uids_.end()) return std::nullopt;
  return it->second;
}

}  // namespace kbench::auth
