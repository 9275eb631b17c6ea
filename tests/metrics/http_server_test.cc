// Unit tests of the /metrics HTTP server: what it answers, that it serves concurrent scrapes,
// that a silent client cannot hold it, and that it stops promptly.
#include "server/metrics/http_server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/metrics/http_get.h"

namespace kbench::metrics {
namespace {

using ::kbench::testing::ConnectTcp;
using ::kbench::testing::HttpGet;
using ::kbench::testing::HttpRequest;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

std::unique_ptr<MetricsHttpServer> StartOrDie(const std::string& listen = "127.0.0.1:0") {
  auto server = MetricsHttpServer::Start(listen, [] { return std::string("up 1\n"); });
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? std::move(*server) : nullptr;
}

TEST(MetricsHttpServer, ServesTheHandlersTextOnMetrics) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  auto got = HttpGet(server->BoundAddress(), "/metrics");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "up 1\n");
  EXPECT_THAT(got->headers, HasSubstr("Content-Type: text/plain; version=0.0.4"));
  EXPECT_THAT(got->headers, HasSubstr("Content-Length: 5"));
}

TEST(MetricsHttpServer, IgnoresAQueryString) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  auto got = HttpGet(server->BoundAddress(), "/metrics?name[]=up");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
}

TEST(MetricsHttpServer, AnswersHeadWithoutABody) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  auto got = HttpRequest(server->BoundAddress(), "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "");
}

TEST(MetricsHttpServer, AnswersNotFoundForOtherPaths) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  auto got = HttpGet(server->BoundAddress(), "/debug");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 404);
}

TEST(MetricsHttpServer, RefusesMethodsOtherThanGetAndHead) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  auto got = HttpRequest(server->BoundAddress(),
                         "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 405);
  EXPECT_THAT(got->headers, HasSubstr("Allow: GET, HEAD"));
}

TEST(MetricsHttpServer, RejectsAGarbledRequestLine) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  auto got = HttpRequest(server->BoundAddress(), "hello\r\n\r\n");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 400);
}

TEST(MetricsHttpServer, RejectsAnOversizedRequest) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  const std::string huge = absl::StrCat("GET /metrics HTTP/1.1\r\nX: ", std::string(40000, 'a'));
  auto got = HttpRequest(server->BoundAddress(), huge);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 431);
}

TEST(MetricsHttpServer, ServesConcurrentScrapes) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto got = HttpGet(server->BoundAddress(), "/metrics");
        if (got.ok() && got->status == 200 && got->body == "up 1\n") ++ok;
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 200);
}

TEST(MetricsHttpServer, DropsASilentClientSoThatScrapesGoOn) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  const int silent = ConnectTcp(server->BoundAddress());
  ASSERT_GE(silent, 0);
  const auto start = std::chrono::steady_clock::now();
  auto got = HttpGet(server->BoundAddress(), "/metrics", 15s);
  const auto waited = std::chrono::steady_clock::now() - start;
  close(silent);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
  // The silent connection is dropped after the server's 5 s deadline, not held forever.
  EXPECT_LT(waited, 8s);
}

TEST(MetricsHttpServer, StopsPromptlyWithAClientConnected) {
  auto server = StartOrDie();
  ASSERT_NE(server, nullptr);
  const int silent = ConnectTcp(server->BoundAddress());
  ASSERT_GE(silent, 0);
  std::this_thread::sleep_for(100ms);  // let the server pick the connection up (not a sync)
  const auto start = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  close(silent);
}

TEST(MetricsHttpServer, ServesOnIpv6Loopback) {
  auto server = MetricsHttpServer::Start("[::1]:0", [] { return std::string("up 1\n"); });
  if (!server.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << server.status();
  EXPECT_TRUE(absl::StartsWith((*server)->BoundAddress(), "[::1]:"));
  auto got = HttpGet((*server)->BoundAddress(), "/metrics");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
}

TEST(MetricsHttpServer, ReportsAnAddressInUse) {
  auto first = StartOrDie();
  ASSERT_NE(first, nullptr);
  auto second = MetricsHttpServer::Start(first->BoundAddress(), [] { return std::string(); });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("Address already in use"));
}

}  // namespace
}  // namespace kbench::metrics
