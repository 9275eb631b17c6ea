// Listen-address validation and the civetweb options of the /metrics Exposer.
#include "server/metrics/exposer.h"

#include <arpa/inet.h>

#include <cctype>
#include <exception>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace kbench::metrics {
namespace {

struct HostPort {
  std::string host;  // "1.2.3.4", "localhost" or "[::1]"
  int port = 0;
};

absl::StatusOr<HostPort> Parse(const std::string& listen) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-listen \"", listen.substr(0, 64), "\": ", why,
                     " (expected HOST:PORT with HOST an IPv4 address, localhost or [IPv6], "
                     "PORT 0..65535; 0 picks a free port)"));
  };
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return bad("no port");
  HostPort out;
  out.host = listen.substr(0, colon);
  const std::string port = listen.substr(colon + 1);
  uint32_t port_number = 0;
  if (port.empty() || port.size() > 5 || !std::isdigit(static_cast<unsigned char>(port[0])) ||
      !absl::SimpleAtoi(port, &port_number) || port_number > 65535) {
    return bad(absl::StrCat("port \"", port, "\" is not a number in 0..65535"));
  }
  out.port = static_cast<int>(port_number);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    in6_addr a6{};
    if (inet_pton(AF_INET6, out.host.substr(1, out.host.size() - 2).c_str(), &a6) != 1) {
      return bad(absl::StrCat("host \"", out.host, "\" is not an IPv6 address"));
    }
    return out;
  }
  if (out.host == "localhost") {
    out.host = "127.0.0.1";
    return out;
  }
  // inet_pton alone accepts exactly four decimal octets, each 0..255.
  in_addr a4{};
  if (inet_pton(AF_INET, out.host.c_str(), &a4) != 1) {
    return bad(absl::StrCat("host \"", out.host, "\" is not an IPv4 address"));
  }
  return out;
}

}  // namespace

absl::Status ValidateListenAddress(const std::string& listen) { return Parse(listen).status(); }

absl::StatusOr<MetricsEndpoint> StartMetricsEndpoint(
    const std::string& listen,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables) {
  KBENCH_ASSIGN_OR_RETURN(HostPort address, Parse(listen));
  // civetweb's option names (docs/UserManual.md of civetweb 1.15).
  std::vector<std::string> options = {
      "listening_ports",    absl::StrCat(address.host, ":", address.port),
      "num_threads",        absl::StrCat(kExposerThreads),
      "request_timeout_ms", absl::StrCat(kExposerRequestTimeoutMs),
      "enable_keep_alive",  "yes",
  };
  MetricsEndpoint endpoint;
  try {
    endpoint.exposer = std::make_unique<prometheus::Exposer>(std::move(options));
  } catch (const std::exception& e) {
    // CivetServer throws when the port cannot be bound.
    return absl::UnavailableError(
        absl::StrCat("--metrics-listen ", listen, ": cannot listen there (", e.what(), ")"));
  }
  for (const auto& c : collectables) endpoint.exposer->RegisterCollectable(c);
  const std::vector<int> ports = endpoint.exposer->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(absl::StrCat("--metrics-listen ", listen, ": no port bound"));
  }
  endpoint.bound_address = absl::StrCat(address.host, ":", ports.front());
  return endpoint;
}

}  // namespace kbench::metrics
