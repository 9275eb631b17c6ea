// The /metrics HTTP server: one thread, poll()-driven accept loop, one short-lived connection at
// a time with a deadline, `Connection: close` on every response.
#include "server/metrics/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kbench::metrics {
namespace {

// A scrape request is a few hundred bytes; a client gets this long to send it and to read the
// answer. Prometheus's own scrape timeout is 10 s by default.
constexpr auto kConnectionDeadline = std::chrono::seconds(5);
constexpr size_t kMaxRequestBytes = 16 * 1024;

struct ParsedAddress {
  std::string host;
  int port = 0;
  sockaddr_storage addr{};
  socklen_t addr_len = 0;
};

absl::StatusOr<ParsedAddress> Parse(const std::string& listen) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-listen \"", listen, "\": ", why,
                     " (expected HOST:PORT with HOST an IPv4 address, localhost or [IPv6], "
                     "PORT 0..65535; 0 picks a free port)"));
  };
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return bad("no port");
  ParsedAddress out;
  out.host = listen.substr(0, colon);
  const std::string port = listen.substr(colon + 1);
  uint32_t port_number = 0;
  if (port.empty() || port.size() > 5 || !std::isdigit(static_cast<unsigned char>(port[0])) ||
      !absl::SimpleAtoi(port, &port_number) || port_number > 65535) {
    return bad(absl::StrCat("port \"", port, "\" is not a number in 0..65535"));
  }
  out.port = static_cast<int>(port_number);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&out.addr);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<uint16_t>(out.port));
    const std::string literal = out.host.substr(1, out.host.size() - 2);
    if (inet_pton(AF_INET6, literal.c_str(), &a6->sin6_addr) != 1) {
      return bad(absl::StrCat("host \"", out.host, "\" is not an IPv6 address"));
    }
    out.addr_len = sizeof(sockaddr_in6);
    return out;
  }
  auto* a4 = reinterpret_cast<sockaddr_in*>(&out.addr);
  a4->sin_family = AF_INET;
  a4->sin_port = htons(static_cast<uint16_t>(out.port));
  out.addr_len = sizeof(sockaddr_in);
  if (out.host == "localhost") {
    a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return out;
  }
  // inet_pton alone accepts exactly four decimal octets, each 0..255.
  if (inet_pton(AF_INET, out.host.c_str(), &a4->sin_addr) != 1) {
    return bad(absl::StrCat("host \"", out.host, "\" is not an IPv4 address"));
  }
  return out;
}

// Milliseconds left until `deadline`, at least 0.
int MillisLeft(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

bool SendAll(int fd, const std::string& data, std::chrono::steady_clock::time_point deadline) {
  size_t sent = 0;
  while (sent < data.size()) {
    pollfd p{fd, POLLOUT, 0};
    const int left = MillisLeft(deadline);
    if (left == 0 || poll(&p, 1, left) <= 0) return false;
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return false;
    }
    sent += static_cast<size_t>(n);
  }
  return true;
}

std::string Response(int code, const char* reason, const std::string& content_type,
                     const std::string& body, bool head, const std::string& extra = "") {
  return absl::StrCat("HTTP/1.1 ", code, " ", reason, "\r\nContent-Type: ", content_type,
                      "\r\nContent-Length: ", body.size(), "\r\n", extra,
                      "Connection: close\r\n\r\n", head ? "" : body);
}

// Closes after the client has read the response: closing with unread request bytes (an
// oversized or rejected request) would send a TCP reset that can destroy the response in flight.
// Returns early when `wake_fd` is readable (the server is stopping).
void LingeringClose(int fd, int wake_fd) {
  shutdown(fd, SHUT_WR);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  char buffer[4096];
  for (;;) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int left = MillisLeft(deadline);
    if (left == 0 || poll(fds, 2, left) <= 0 || fds[1].revents != 0) break;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
  }
  close(fd);
}

}  // namespace

absl::Status ValidateListenAddress(const std::string& listen) { return Parse(listen).status(); }

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& listen, Handler handler) {
  absl::StatusOr<ParsedAddress> address = Parse(listen);
  if (!address.ok()) return address.status();
  const int fd = socket(address->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("--metrics-listen \"", listen, "\": socket: ", std::strerror(errno)));
  }
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address->addr), address->addr_len) != 0 ||
      ::listen(fd, 64) != 0) {
    const int err = errno;
    close(fd);
    return absl::UnavailableError(
        absl::StrCat("--metrics-listen \"", listen, "\": cannot listen: ", std::strerror(err)));
  }
  sockaddr_storage bound{};
  socklen_t bound_len = sizeof(bound);
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_len);
  const int port = bound.ss_family == AF_INET6
                       ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                       : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    close(fd);
    return absl::InternalError(absl::StrCat("pipe2: ", std::strerror(errno)));
  }
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(
      fd, wake[0], wake[1], absl::StrCat(address->host, ":", port), std::move(handler)));
}

MetricsHttpServer::MetricsHttpServer(int listen_fd, int wake_read_fd, int wake_write_fd,
                                     std::string bound, Handler handler)
    : listen_fd_(listen_fd),
      wake_read_fd_(wake_read_fd),
      wake_write_fd_(wake_write_fd),
      bound_address_(std::move(bound)),
      handler_(std::move(handler)) {
  thread_ = std::thread([this] { Serve(); });
}

MetricsHttpServer::~MetricsHttpServer() {
  const char byte = 1;
  // The pipe is empty and non-blocking: this write cannot block or fail short.
  (void)!write(wake_write_fd_, &byte, 1);
  thread_.join();
  close(listen_fd_);
  close(wake_read_fd_);
  close(wake_write_fd_);
}

void MetricsHttpServer::Serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int conn = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (conn < 0) continue;  // the client went away, or EMFILE: try again at the next poll
    HandleConnection(conn);
    LingeringClose(conn, wake_read_fd_);
  }
}

void MetricsHttpServer::HandleConnection(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + kConnectionDeadline;
  std::string request;
  char buffer[4096];
  while (request.find("\r\n\r\n") == std::string::npos &&
         request.find("\n\n") == std::string::npos) {
    if (request.size() > kMaxRequestBytes) {
      SendAll(fd, Response(431, "Request Header Fields Too Large", "text/plain", "", false),
              deadline);
      return;
    }
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_read_fd_, POLLIN, 0}};
    const int left = MillisLeft(deadline);
    if (left == 0 || poll(fds, 2, left) <= 0 || fds[1].revents != 0) return;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;
    request.append(buffer, static_cast<size_t>(n));
  }
  const std::string first_line = request.substr(0, request.find_first_of("\r\n"));
  std::vector<std::string> parts = absl::StrSplit(first_line, ' ', absl::SkipEmpty());
  if (parts.size() != 3 || parts[2].rfind("HTTP/1.", 0) != 0) {
    SendAll(fd, Response(400, "Bad Request", "text/plain", "bad request line\n", false), deadline);
    return;
  }
  const std::string& method = parts[0];
  const bool head = method == "HEAD";
  if (method != "GET" && !head) {
    SendAll(fd,
            Response(405, "Method Not Allowed", "text/plain", "only GET and HEAD\n", false,
                     "Allow: GET, HEAD\r\n"),
            deadline);
    return;
  }
  std::string path = parts[1];
  path = path.substr(0, path.find('?'));
  if (path == "/metrics") {
    SendAll(fd, Response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", handler_(), head),
            deadline);
  } else if (path == "/") {
    SendAll(fd,
            Response(200, "OK", "text/html; charset=utf-8",
                     "<html><body><a href=\"/metrics\">kbenchd metrics</a></body></html>\n", head),
            deadline);
  } else {
    SendAll(fd, Response(404, "Not Found", "text/plain", "not found; try /metrics\n", head),
            deadline);
  }
}

}  // namespace kbench::metrics
