// kbench.v1's registered user variants (issue 27: one small service per domain): AddVariant,
// GetVariant, ListVariants, DeleteVariant, and the resolution of `@name` variants in a submitted
// job or sweep (registered_variants.h). A registration is bounded per owner and counted against
// the owner's stored bytes (usage_service.h); reading a variant's code or removing it is its
// owner's or an admin's. Nothing here knows gRPC.
#pragma once

#include <cstdint>
#include <mutex>

#include "absl/status/status.h"
#include "kbench/v1/service.pb.h"
#include "server/api/registered_variants.h"
#include "server/api/usage_service.h"
#include "server/auth/authenticator.h"
#include "server/scheduler/clock.h"
#include "server/store/variant_store.h"

namespace kbench::api {

class VariantService {
 public:
  // `variants` null: this kbenchd keeps no registered variants, and every call answers
  // UNIMPLEMENTED (a job's `@name` is then left for validation to refuse). Each must outlive
  // it; `clock` stamps a registration.
  VariantService(store::VariantStore* variants, UsageService* usage, scheduler::Clock* clock,
                 int64_t max_per_owner)
      : variants_(variants), usage_(usage), clock_(clock), max_per_owner_(max_per_owner) {}

  absl::Status Add(const auth::Identity& caller, const v1::AddVariantRequest& request,
                   v1::AddVariantResponse* response);
  absl::Status Get(const auth::Identity& caller, const v1::GetVariantRequest& request,
                   v1::GetVariantResponse* response);
  absl::Status List(const auth::Identity& caller, const v1::ListVariantsRequest& request,
                    v1::ListVariantsResponse* response);
  absl::Status Delete(const auth::Identity& caller, const v1::DeleteVariantRequest& request,
                      v1::DeleteVariantResponse* response);

  // Replaces each `@name` variant of `spec` with the registered kernel; `cache` (may be null)
  // keeps what was read across the points of one sweep.
  absl::Status Resolve(v1::JobSpec* spec, ResolvedVariants* cache);

 private:
  absl::Status Kept() const;

  store::VariantStore* const variants_;
  UsageService* const usage_;
  scheduler::Clock* const clock_;
  const int64_t max_per_owner_;
  // A registration's count check and insert, and a removal's owner check and delete.
  std::mutex mu_;
};

}  // namespace kbench::api
