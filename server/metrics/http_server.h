// A minimal HTTP/1.x server for GET /metrics, on its own thread with a normal stack.
// Why not prometheus-cpp's civetweb Exposer: civetweb starts its threads with a fixed 100 KiB
// stack, and glibc refuses (EINVAL) any thread whose stack cannot hold the process's static TLS,
// which in kbenchd is larger than that (cuBLAS Lt alone has 92 KiB of thread-locals).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::metrics {

// Parses a listen address "HOST:PORT": HOST an IPv4 literal, "localhost" or a bracketed IPv6
// literal ("[::1]"), PORT 0..65535 (0 picks a free port). INVALID_ARGUMENT naming
// --metrics-listen and the value otherwise.
absl::Status ValidateListenAddress(const std::string& listen);

class MetricsHttpServer {
 public:
  // Produces the body of GET /metrics (Prometheus text format); called on the server thread.
  using Handler = std::function<std::string()>;

  // Binds `listen` and starts serving. UNAVAILABLE when the address cannot be bound (in use,
  // not local), INVALID_ARGUMENT when it does not parse.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(const std::string& listen,
                                                                  Handler handler);
  // Stops accepting, finishes nothing in flight beyond its deadline, joins the thread.
  ~MetricsHttpServer();

  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // "host:port" actually bound (the port picked when 0 was asked).
  const std::string& BoundAddress() const { return bound_address_; }

 private:
  MetricsHttpServer(int listen_fd, int wake_read_fd, int wake_write_fd, std::string bound,
                    Handler handler);
  void Serve();
  void HandleConnection(int fd);

  const int listen_fd_;
  const int wake_read_fd_;
  const int wake_write_fd_;
  const std::string bound_address_;
  const Handler handler_;
  std::thread thread_;
};

}  // namespace kbench::metrics
