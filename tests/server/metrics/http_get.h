// Test helper: a blocking HTTP/1.0 exchange on loopback with a deadline, enough to scrape
// /metrics and to query Prometheus's HTTP API without an HTTP client library.
#pragma once

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kbench::testing {

struct HttpResponse {
  int status = 0;
  std::string headers;  // the status line and header lines, as received
  std::string body;
};

// Connects to `host_port` (HOST an IPv4 address, a name, or "[IPv6]"); -1 on failure.
inline int ConnectTcp(const std::string& host_port) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return -1;
  std::string host = host_port.substr(0, colon);
  const std::string port = host_port.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (host.size() >= 2 && host.front() == '[') {
    host = host.substr(1, host.size() - 2);
    hints.ai_family = AF_INET6;
  }
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) return -1;
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  // A loopback connect either succeeds or is refused at once; no need for a non-blocking one.
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return fd;
}

// Sends `request` as is and reads the response until the server closes the connection; the
// whole exchange bounded by `timeout`.
inline absl::StatusOr<HttpResponse> HttpRequest(
    const std::string& host_port, const std::string& request,
    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int fd = ConnectTcp(host_port);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("cannot connect to ", host_port));
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    close(fd);
    return absl::UnavailableError(absl::StrCat("send to ", host_port, " failed"));
  }
  std::string raw;
  char buffer[16384];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      close(fd);
      return absl::DeadlineExceededError(absl::StrCat("request to ", host_port, " timed out"));
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0) {
      close(fd);
      return absl::UnavailableError(absl::StrCat("recv from ", host_port, " failed"));
    }
    if (n == 0) break;
    raw.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  const size_t header_end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/", 0) != 0 || header_end == std::string::npos) {
    return absl::DataLossError(
        absl::StrCat("not an HTTP response from ", host_port, ": ", raw.substr(0, 200)));
  }
  HttpResponse out;
  const size_t space = raw.find(' ');
  if (!absl::SimpleAtoi(raw.substr(space + 1, 3), &out.status)) {
    return absl::DataLossError(absl::StrCat("bad status line: ", raw.substr(0, 80)));
  }
  out.headers = raw.substr(0, header_end);
  out.body = raw.substr(header_end + 4);
  return out;
}

// GET http://`host_port``path`.
inline absl::StatusOr<HttpResponse> HttpGet(
    const std::string& host_port, const std::string& path,
    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  return HttpRequest(
      host_port,
      absl::StrCat("GET ", path, " HTTP/1.0\r\nHost: ", host_port, "\r\nConnection: close\r\n\r\n"),
      timeout);
}

// Percent-encodes a query parameter value.
inline std::string UrlEncode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace kbench::testing
