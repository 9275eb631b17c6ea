// Registered user variants between the API and the store: a variant's record from a request,
// its API form, and the resolution of `@name` variants at submit. A job lists a registered
// variant by name; kbenchd copies its kernel into the job's spec, so the executor sees an
// ordinary user kernel and the job stays reproducible after the variant is removed. The store
// keeps a large code once for the variant and all its jobs (server/store/code_blobs.h).
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "kbench/v1/variants.pb.h"
#include "server/store/variant_store.h"

namespace kbench::api {

// The stored record of `kernel` (validated) registered by `owner` for `operation` at `now_ns`.
store::VariantRecord RecordOf(const std::string& operation, const v1::UserKernel& kernel,
                              const std::string& owner, int64_t now_ns);

// How much of a registered variant's kernel the API shows.
enum class VariantDetail {
  kSummary,  // none: listings
  kLaunch,   // entry, launch configuration, options, metadata: all but the code
  kCode,     // all of it: its owner or an admin asked for the code
};

// The API's view of `record`, with as much of its kernel as `detail` says.
absl::StatusOr<v1::RegisteredVariant> VariantOf(const store::VariantRecord& record,
                                                VariantDetail detail);

// A registered kernel and whose code it is.
struct RegisteredKernel {
  v1::UserKernel kernel;
  std::string owner;
};
// Registered kernels already read, by name, for a sweep's many points.
using ResolvedVariants = std::map<std::string, RegisteredKernel>;

// Adds `owner` to spec.code_owners unless it is there.
void AddCodeOwner(const std::string& owner, v1::JobSpec* spec);

// For each `@name` in spec.variants that no spec.user_kernels entry provides, appends the
// kernel registered under that name for spec.kernel. NOT_FOUND naming the variant and the
// operation when there is none. `cache` (may be null) keeps the kernels read across calls.
// Fills spec.code_owners: the spec's owner for the kernels it brings (unless the list is already
// filled, as an admin's confirming re-run does), each registered kernel's registrant.
absl::Status ResolveRegisteredVariants(store::VariantStore& variants, v1::JobSpec* spec,
                                       ResolvedVariants* cache);

}  // namespace kbench::api
