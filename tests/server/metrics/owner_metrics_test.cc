// Tenancy series: GPU seconds per owner under the owner's name only for the auth file's users
// (others as "other"), and authentication failures by their bounded reason.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/metrics/prometheus_metrics.h"
#include "tests/server/metrics/exposition.h"

namespace kbench::metrics {
namespace {

using ::kbench::testing::FindSample;
using ::testing::Optional;

std::unique_ptr<PrometheusMetrics> NewMetrics() {
  auto m = PrometheusMetrics::Create("", [] {
    return absl::StatusOr<std::unique_ptr<GpuSource>>(absl::FailedPreconditionError("no NVML"));
  });
  EXPECT_TRUE(m.ok()) << m.status();
  return std::move(*m);
}

TEST(OwnerMetrics, LabelsListedOwnersByNameAndEveryoneElseAsOther) {
  auto m = NewMetrics();
  m->SetKnownOwners({"alice", "bob"});
  m->AddOwnerGpuSeconds("alice", 1.5);
  m->AddOwnerGpuSeconds("alice", 2.5);
  m->AddOwnerGpuSeconds("mallory", 3);
  m->AddOwnerGpuSeconds("eve", 1);
  const std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_owner_gpu_seconds_total", {{"owner", "alice"}}),
              Optional(4.0));
  EXPECT_THAT(FindSample(text, "kbench_owner_gpu_seconds_total", {{"owner", "other"}}),
              Optional(4.0));
  EXPECT_FALSE(
      FindSample(text, "kbench_owner_gpu_seconds_total", {{"owner", "mallory"}}).has_value());
  // A reload that drops bob: his later seconds count as other.
  m->SetKnownOwners({"alice"});
  m->AddOwnerGpuSeconds("bob", 2);
  EXPECT_THAT(FindSample(m->ScrapeText(), "kbench_owner_gpu_seconds_total", {{"owner", "other"}}),
              Optional(6.0));
}

TEST(OwnerMetrics, EveryAuthFailureReasonIsThereAtZeroFromTheStart) {
  auto m = NewMetrics();
  const std::string text = m->ScrapeText();
  for (const char* reason :
       {"no_credentials", "malformed_header", "unknown_token", "bad_certificate_name",
        "certificate_not_for_clients", "unlisted_certificate", "other"}) {
    EXPECT_THAT(FindSample(text, "kbench_auth_failures_total", {{"reason", reason}}), Optional(0.0))
        << reason;
  }
}

TEST(OwnerMetrics, CountsAuthenticationFailuresByKnownReasonOnly) {
  auto m = NewMetrics();
  m->AuthFailed("unknown_token");
  m->AuthFailed("unknown_token");
  m->AuthFailed("no_credentials");
  m->AuthFailed("made up");
  const std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_auth_failures_total", {{"reason", "unknown_token"}}),
              Optional(2.0));
  EXPECT_THAT(FindSample(text, "kbench_auth_failures_total", {{"reason", "no_credentials"}}),
              Optional(1.0));
  EXPECT_THAT(FindSample(text, "kbench_auth_failures_total", {{"reason", "other"}}), Optional(1.0));
}

}  // namespace
}  // namespace kbench::metrics
