// The LISTEN loop: poll() on the connection's socket and a wake-up eventfd.
#include "server/store/postgres_listener.h"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/common/logging.h"
#include "server/store/postgres_db.h"

namespace kbench::store {
namespace {

using logging::Field;
using logging::Level;

constexpr int kPollTimeoutMs = 1000;

}  // namespace

struct PostgresListener::Connection {
  PGconn* conn = nullptr;
  ~Connection() { Close(); }
  void Close() {
    if (conn != nullptr) PQfinish(conn);
    conn = nullptr;
  }
  // Connects and LISTENs; the error otherwise.
  absl::Status Open(const std::string& url, const std::string& channel) {
    Close();
    conn = PQconnectdb(url.c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
      absl::Status status = absl::UnavailableError(absl::StrCat(
          "postgres listen on ", internal::RedactedUrl(url), ": ", PQerrorMessage(conn)));
      Close();
      return status;
    }
    char* quoted = PQescapeIdentifier(conn, channel.data(), channel.size());
    PGresult* result = PQexec(conn, absl::StrCat("LISTEN ", quoted).c_str());
    PQfreemem(quoted);
    const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
    PQclear(result);
    if (!ok) {
      absl::Status status =
          absl::UnavailableError(absl::StrCat("postgres LISTEN: ", PQerrorMessage(conn)));
      Close();
      return status;
    }
    return absl::OkStatus();
  }
};

PostgresListener::PostgresListener(std::string url, std::string channel, Callback on_notify)
    : url_(std::move(url)),
      channel_(std::move(channel)),
      on_notify_(std::move(on_notify)),
      connection_(std::make_unique<Connection>()) {}

absl::StatusOr<std::unique_ptr<PostgresListener>> PostgresListener::Start(
    const std::string& url, const std::string& channel, Callback on_notify) {
  std::unique_ptr<PostgresListener> listener(
      new PostgresListener(url, channel, std::move(on_notify)));
  KBENCH_RETURN_IF_ERROR(listener->connection_->Open(url, channel));
  listener->wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (listener->wake_fd_ < 0) return absl::InternalError("eventfd for the listener failed");
  listener->thread_ = std::thread([l = listener.get()] { l->Loop(); });
  return listener;
}

PostgresListener::~PostgresListener() {
  stopping_ = true;
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
  if (wake_fd_ >= 0) close(wake_fd_);
}

void PostgresListener::Loop() {
  while (!stopping_) {
    if (connection_->conn == nullptr) {
      absl::Status opened = connection_->Open(url_, channel_);
      if (!opened.ok()) {
        logging::Log(Level::kWarn, "fleet listener cannot reconnect; retrying",
                     {Field("error", opened.ToString())});
        pollfd wake{wake_fd_, POLLIN, 0};
        poll(&wake, 1, kPollTimeoutMs);
        continue;
      }
      on_notify_("");  // what was sent meanwhile is lost: resynchronize
    }
    if (!Drain()) connection_->Close();
  }
}

bool PostgresListener::Drain() {
  PGconn* conn = connection_->conn;
  pollfd fds[2] = {{PQsocket(conn), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  if (poll(fds, 2, kPollTimeoutMs) < 0) return true;  // EINTR: try again
  if (stopping_) return true;
  if ((fds[0].revents & POLLIN) == 0 && (fds[0].revents & (POLLERR | POLLHUP)) == 0) return true;
  if (PQconsumeInput(conn) == 0) return false;
  while (PGnotify* n = PQnotifies(conn)) {
    std::string payload = n->extra != nullptr ? n->extra : "";
    PQfreemem(n);
    on_notify_(payload);
  }
  return PQstatus(conn) == CONNECTION_OK;
}

}  // namespace kbench::store
