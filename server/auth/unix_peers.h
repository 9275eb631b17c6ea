// The connections accepted on kbenchd's Unix socket and the uid the kernel reported for each
// (SO_PEERCRED). gRPC's auth context does not expose a Unix peer's credentials, so kbenchd
// accepts those connections itself, records the uid here, and hands the descriptor to gRPC
// (grpc::AddInsecureChannelFromFd), whose calls then show the peer "fd:N"
// (src/core/ext/transport/chttp2/server/insecure/server_chttp2_posix.cc).
// Thread-safe.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace kbench::auth {

class UnixPeers {
 public:
  // A connection accepted as descriptor `fd` from `uid`. A descriptor number gRPC closed and
  // the kernel reused replaces the old entry: by then the old connection has no calls left to
  // authenticate (its calls were cancelled with it).
  void Accepted(int fd, uid_t uid);
  // The uid behind a call's peer string, when it is one of our descriptors ("fd:N").
  std::optional<uid_t> UidOf(const std::string& peer) const;

 private:
  mutable absl::Mutex mu_;
  std::map<int, uid_t> uids_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::auth
