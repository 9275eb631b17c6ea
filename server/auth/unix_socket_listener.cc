// Binding kbenchd's Unix socket and accepting its connections (see unix_socket_listener.h).
#include "server/auth/unix_socket_listener.h"

#include <fcntl.h>
#include <grp.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/common/logging.h"

namespace kbench::auth {
namespace {

absl::Status SocketError(const std::string& path, const std::string& what) {
  return absl::FailedPreconditionError(
      absl::StrCat("--unix-socket ", path, ": ", what, ": ", strerror(errno)));
}

absl::StatusOr<sockaddr_un> AddressOf(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("--unix-socket ", path, ": must have 1 to ",
                                                   sizeof(address.sun_path) - 1, " bytes"));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  return address;
}

// Removes a socket file nobody answers on; refuses a live one and anything not a socket.
absl::Status ClearStaleSocket(const std::string& path, const sockaddr_un& address) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return absl::OkStatus();
  if (!S_ISSOCK(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("--unix-socket ", path, ": exists and is not a socket"));
  }
  const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool live = probe >= 0 && connect(probe, reinterpret_cast<const sockaddr*>(&address),
                                          sizeof(address)) == 0;
  if (probe >= 0) close(probe);
  if (live) {
    return absl::FailedPreconditionError(
        absl::StrCat("--unix-socket ", path, ": another kbenchd is serving there"));
  }
  if (unlink(path.c_str()) != 0) return SocketError(path, "cannot remove the stale socket");
  return absl::OkStatus();
}

absl::StatusOr<gid_t> GroupId(const std::string& group) {
  long size = sysconf(_SC_GETGR_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<size_t>(size) : 16384);
  struct group entry {};
  struct group* found = nullptr;
  if (getgrnam_r(group.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--unix-socket-group ", group, ": no such group"));
  }
  return found->gr_gid;
}

// Mode 0600, or 0660 for `group`: who may connect is decided by the file's permissions.
absl::Status RestrictAccess(const std::string& path, const std::string& group) {
  if (!group.empty()) {
    KBENCH_ASSIGN_OR_RETURN(const gid_t gid, GroupId(group));
    if (chown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) {
      return SocketError(path, absl::StrCat("cannot give it to group ", group));
    }
  }
  if (chmod(path.c_str(), group.empty() ? 0600 : 0660) != 0) {
    return SocketError(path, "cannot set its mode");
  }
  return absl::OkStatus();
}

// Whether `fd` is a connection accepted on the socket bound at `path` (not the listener).
bool IsConnectionTo(int fd, const std::string& path) {
  sockaddr_un local{};
  socklen_t length = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) return false;
  if (local.sun_family != AF_UNIX || length <= offsetof(sockaddr_un, sun_path)) return false;
  int listening = 0;
  socklen_t size = sizeof(listening);
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening != 0) {
    return false;
  }
  return std::strncmp(local.sun_path, path.c_str(), sizeof(local.sun_path)) == 0;
}

}  // namespace

std::string DefaultUnixSocketPath(const std::string& data_dir) {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  if (runtime != nullptr && runtime[0] != '\0') return absl::StrCat(runtime, "/kbenchd.sock");
  return absl::StrCat(data_dir, "/kbenchd.sock");
}

absl::StatusOr<std::unique_ptr<UnixSocketListener>> UnixSocketListener::Bind(
    const std::string& path, const std::string& group, UnixPeers* peers) {
  KBENCH_ASSIGN_OR_RETURN(const sockaddr_un address, AddressOf(path));
  KBENCH_RETURN_IF_ERROR(ClearStaleSocket(path, address));
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return SocketError(path, "cannot create a socket");
  // Created 0600 (umask) so that no one slips in before RestrictAccess.
  const mode_t old_mask = umask(0177);
  const int bound = bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
  umask(old_mask);
  absl::Status status = bound == 0 ? RestrictAccess(path, group) : SocketError(path, "cannot bind");
  if (status.ok() && listen(fd, 128) != 0) status = SocketError(path, "cannot listen");
  int wake[2] = {-1, -1};
  if (status.ok() && pipe2(wake, O_CLOEXEC) != 0) status = SocketError(path, "cannot make a pipe");
  if (!status.ok()) {
    close(fd);
    if (bound == 0) unlink(path.c_str());
    return status;
  }
  return std::unique_ptr<UnixSocketListener>(
      new UnixSocketListener(path, fd, wake[0], wake[1], peers));
}

UnixSocketListener::~UnixSocketListener() {
  Stop();
  close(fd_);
  close(wake_read_);
  close(wake_write_);
}

void UnixSocketListener::Start(grpc::Server* server) {
  acceptor_ = std::thread([this, server] { AcceptLoop(server); });
}

void UnixSocketListener::Stop() {
  if (!acceptor_.joinable()) return;
  const char byte = 0;
  (void)!write(wake_write_, &byte, 1);
  acceptor_.join();
  unlink(path_.c_str());
}

void UnixSocketListener::Disconnect() {
  if (acceptor_.joinable()) return;  // still accepting: Stop first
  for (const int fd : handed_over_) {
    // gRPC may have closed it and the number gone to another descriptor since: only a
    // connection to this socket is ours to end (an accepted socket is named after it).
    if (IsConnectionTo(fd, path_)) shutdown(fd, SHUT_RDWR);
  }
}

void UnixSocketListener::AcceptLoop(grpc::Server* server) {
  while (true) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    // Non-blocking, as gRPC's endpoints expect of the descriptors they are given.
    const int connection = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (connection < 0) continue;
    ucred peer{};
    socklen_t length = sizeof(peer);
    if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
      logging::Log(logging::Level::kWarn, "unix socket: no peer credentials; connection closed",
                   {logging::Field("error", strerror(errno))});
      close(connection);
      continue;
    }
    // Recorded before gRPC reads the first call from it.
    peers_->Accepted(connection, peer.uid);
    handed_over_.insert(connection);
    grpc::AddInsecureChannelFromFd(server, connection);
  }
}

}  // namespace kbench::auth
