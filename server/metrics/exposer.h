// /metrics over HTTP through prometheus-cpp's pull Exposer (civetweb), the library the
// Prometheus C++ ecosystem uses. Possible since kbenchd links no CUDA library: cuBLASLt's large
// static TLS no longer overflows civetweb's fixed 100 KiB thread stacks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"

namespace kbench::metrics {

// Parses a listen address "HOST:PORT": HOST an IPv4 literal, "localhost" or a bracketed IPv6
// literal ("[::1]"), PORT 0..65535 (0 picks a free port). INVALID_ARGUMENT naming
// --metrics-listen and the value otherwise.
absl::Status ValidateListenAddress(const std::string& listen);

// civetweb worker threads. civetweb gives each connection, idle or not, one worker until the
// connection closes or its request times out, so this bounds how many clients (scrapers, load
// balancer probes, a stuck client) may hold connections while a scrape still gets a worker.
inline constexpr int kExposerThreads = 16;
// How long an idle connection may hold its worker, in ms (Prometheus's scrape timeout is 10 s).
inline constexpr int kExposerRequestTimeoutMs = 10000;

struct MetricsEndpoint {
  std::unique_ptr<prometheus::Exposer> exposer;
  // "host:port" actually bound (the port picked when 0 was asked).
  std::string bound_address;
};

// Serves GET /metrics on `listen` with everything `collectables` hold (held weakly: they must
// outlive the endpoint). INVALID_ARGUMENT when
// `listen` does not parse, UNAVAILABLE when it cannot be bound (in use, not local).
absl::StatusOr<MetricsEndpoint> StartMetricsEndpoint(
    const std::string& listen,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables);

}  // namespace kbench::metrics
