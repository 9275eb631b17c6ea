// Tenancy series: jobs and GPU seconds per owner (bounded to the auth file's users, and only
// with --metrics-owner-labels: kbenchd passes no known owners otherwise) and
// authentication failures by reason.
#include <set>

#include "server/metrics/prometheus_metrics.h"

namespace kbench::metrics {
// AuthFailureName's words (server/auth): a fixed set, anything else is a caller's bug.
const std::set<std::string>& PrometheusMetrics::AuthFailureReasons() {
  static const std::set<std::string> reasons = {"no_credentials",
                                                "malformed_header",
                                                "unknown_token",
                                                "bad_certificate_name",
                                                "certificate_not_for_clients",
                                                "unlisted_certificate"};
  return reasons;
}

std::string PrometheusMetrics::OwnerLabel(const std::string& owner) {
  absl::MutexLock lock(&owners_mu_);
  return known_owners_.contains(owner) ? owner : "other";
}

void PrometheusMetrics::OwnerJobSubmitted(const std::string& owner) {
  owner_jobs_submitted_->Add({{"owner", OwnerLabel(owner)}}).Increment();
}

void PrometheusMetrics::AddOwnerGpuSeconds(const std::string& owner, double seconds) {
  if (!(seconds > 0)) return;
  owner_gpu_seconds_->Add({{"owner", OwnerLabel(owner)}}).Increment(seconds);
}

void PrometheusMetrics::SetKnownOwners(const std::vector<std::string>& owners) {
  absl::MutexLock lock(&owners_mu_);
  known_owners_ = std::set<std::string>(owners.begin(), owners.end());
}

void PrometheusMetrics::AuthFailed(const std::string& reason) {
  auth_failures_->Add({{"reason", AuthFailureReasons().contains(reason) ? reason : "other"}})
      .Increment();
}

}  // namespace kbench::metrics
