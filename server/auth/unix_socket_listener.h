// kbenchd's Unix socket: the default way in when no auth file and no --open are given, so that
// on a shared GPU host each caller is the Unix user the kernel says it is (SO_PEERCRED), not
// `local`, an admin. kbenchd accepts the connections itself, records each one's uid in
// UnixPeers, and hands the descriptor to the running gRPC server (see unix_peers.h for why).
// Not thread-safe: Start and Stop from one thread (main's).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "server/auth/unix_peers.h"

namespace grpc {
class Server;
}

namespace kbench::auth {

// Where the socket goes without --unix-socket: $XDG_RUNTIME_DIR/kbenchd.sock when that is set
// (a per-user daemon), else DATA_DIR/kbenchd.sock.
std::string DefaultUnixSocketPath(const std::string& data_dir);

class UnixSocketListener {
 public:
  // Binds `path` with mode 0600 (only kbenchd's uid connects), or 0660 and group `group` when
  // one is given (its members connect). A stale socket left by a crash is replaced; one that
  // still answers is another kbenchd's and is refused. `peers` must outlive this object.
  static absl::StatusOr<std::unique_ptr<UnixSocketListener>> Bind(const std::string& path,
                                                                  const std::string& group,
                                                                  UnixPeers* peers);
  ~UnixSocketListener();

  // Accepts connections on a thread of its own and serves them with `server` (started, and
  // outliving Stop).
  void Start(grpc::Server* server);
  // Stops accepting and removes the socket file; connections already handed over stay gRPC's.
  void Stop();
  // After Stop: ends every connection handed to gRPC that is still open, so that its client
  // sees the connection close (UNAVAILABLE) before gRPC's shutdown could answer one of its
  // calls CANCELLED (see call_gate.h). gRPC still owns and closes the descriptors.
  void Disconnect();
  const std::string& path() const { return path_; }

 private:
  UnixSocketListener(std::string path, int fd, int wake_read, int wake_write, UnixPeers* peers)
      : path_(std::move(path)),
        fd_(fd),
        wake_read_(wake_read),
        wake_write_(wake_write),
        peers_(peers) {}
  void AcceptLoop(grpc::Server* server);

  const std::string path_;
  const int fd_;
  const int wake_read_;  // readable once Stop is called
  const int wake_write_;
  UnixPeers* const peers_;
  std::thread acceptor_;
  // Descriptors handed to gRPC (by the acceptor, read by Disconnect after Stop joined it). A
  // number is kept once however often the kernel reuses it, so the set stays small.
  std::set<int> handed_over_;
};

}  // namespace kbench::auth
