// Unit tests of the /metrics endpoint (prometheus-cpp's Exposer with kbench's options): what it
// serves, that scrapes go on while other clients hold idle connections, concurrent scrapes,
// IPv6, and a clear error for an address in use.
#include "server/metrics/exposer.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "tests/server/metrics/http_get.h"

namespace kbench::metrics {
namespace {

using ::kbench::testing::ConnectTcp;
using ::kbench::testing::HttpGet;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

std::shared_ptr<prometheus::Registry> RegistryWithUp() {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge().Name("kbench_test_up").Help("test").Register(*registry).Add({}).Set(1);
  return registry;
}

// The Exposer holds collectables weakly: the registry must outlive it.
const std::shared_ptr<prometheus::Registry>& TestRegistry() {
  static const auto* registry = new std::shared_ptr<prometheus::Registry>(RegistryWithUp());
  return *registry;
}

MetricsEndpoint StartOrDie(const std::string& listen = "127.0.0.1:0") {
  absl::StatusOr<MetricsEndpoint> endpoint = StartMetricsEndpoint(listen, {TestRegistry()});
  EXPECT_TRUE(endpoint.ok()) << endpoint.status();
  return endpoint.ok() ? std::move(*endpoint) : MetricsEndpoint{};
}

TEST(MetricsEndpoint, ServesTheRegistryOnMetrics) {
  MetricsEndpoint endpoint = StartOrDie();
  ASSERT_NE(endpoint.exposer, nullptr);
  EXPECT_TRUE(absl::StartsWith(endpoint.bound_address, "127.0.0.1:"));
  EXPECT_NE(endpoint.bound_address, "127.0.0.1:0");
  auto got = HttpGet(endpoint.bound_address, "/metrics");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
  EXPECT_THAT(got->body, HasSubstr("kbench_test_up 1"));
}

TEST(MetricsEndpoint, AnswersNotFoundForOtherPaths) {
  MetricsEndpoint endpoint = StartOrDie();
  ASSERT_NE(endpoint.exposer, nullptr);
  auto got = HttpGet(endpoint.bound_address, "/secrets");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 404);
}

// civetweb hands each connection a worker until it closes or its request times out (10 s): with
// too few workers, ten silent clients would hold them all and the scrape would wait for the
// timeout. The client's 5 s bound separates the two.
TEST(MetricsEndpoint, ServesAScrapeWhileTenIdleConnectionsAreHeldOpen) {
  MetricsEndpoint endpoint = StartOrDie();
  ASSERT_NE(endpoint.exposer, nullptr);
  std::vector<int> idle;
  for (int i = 0; i < 10; ++i) {
    const int fd = ConnectTcp(endpoint.bound_address);
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
  }
  auto got = HttpGet(endpoint.bound_address, "/metrics", 5s);
  for (int fd : idle) close(fd);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
  EXPECT_THAT(got->body, HasSubstr("kbench_test_up 1"));
}

TEST(MetricsEndpoint, ServesConcurrentScrapes) {
  MetricsEndpoint endpoint = StartOrDie();
  ASSERT_NE(endpoint.exposer, nullptr);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto got = HttpGet(endpoint.bound_address, "/metrics");
        if (got.ok() && got->status == 200 && absl::StrContains(got->body, "kbench_test_up 1")) {
          ++ok;
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 200);
}

TEST(MetricsEndpoint, ServesOnIpv6Loopback) {
  absl::StatusOr<MetricsEndpoint> endpoint = StartMetricsEndpoint("[::1]:0", {TestRegistry()});
  if (!endpoint.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << endpoint.status();
  EXPECT_TRUE(absl::StartsWith(endpoint->bound_address, "[::1]:"));
  auto got = HttpGet(endpoint->bound_address, "/metrics");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
}

TEST(MetricsEndpoint, ReportsAnAddressInUseAsUnavailable) {
  MetricsEndpoint first = StartOrDie();
  ASSERT_NE(first.exposer, nullptr);
  absl::StatusOr<MetricsEndpoint> second =
      StartMetricsEndpoint(first.bound_address, {TestRegistry()});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr(first.bound_address));
}

TEST(MetricsEndpoint, RejectsAMalformedAddressNamingTheFlag) {
  absl::StatusOr<MetricsEndpoint> endpoint = StartMetricsEndpoint("nowhere", {TestRegistry()});
  ASSERT_FALSE(endpoint.ok());
  EXPECT_EQ(endpoint.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(endpoint.status().message()), HasSubstr("--metrics-listen"));
}

}  // namespace
}  // namespace kbench::metrics
