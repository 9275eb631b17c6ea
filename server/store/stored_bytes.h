// What each owner keeps in the store, for the per-owner bound on stored bytes (issue 24, item 8):
// their jobs' specs (a small user kernel's code travels inline in its job's spec), the large
// kernels' code their jobs and variants refer to (code_blobs, each counted once), their jobs'
// artifacts, their registered variants, and their sweeps (spec and report). Summed from the
// store on every call, so every node of a fleet counts the same bytes; indexed sums that read no
// job row. A connection of its own to kbench.db (or the fleet's PostgreSQL); JobStore::Open
// migrates first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/store/store_location.h"

namespace kbench::store {

// A kernel's code larger than this is kept once in the store (code_blobs.h), however many jobs
// and variants use it; smaller code travels inline in each spec.
inline constexpr int64_t kCodeKeptOnceAboveBytes = 4096;

// One owner's stored bytes, by what holds them.
struct OwnerStoredBytes {
  int64_t job_specs = 0;
  int64_t artifacts = 0;  // of the owner's jobs
  int64_t variants = 0;   // registered variants' stored kernels
  int64_t sweeps = 0;     // sweeps' specs and reports (their points are jobs, counted above)
  // Large kernels' code (code_blobs) that the owner's jobs or variants refer to, each blob
  // once: ten jobs of one 32 MiB variant count 32 MiB.
  int64_t code = 0;

  int64_t total() const { return job_specs + artifacts + variants + sweeps + code; }
};

// Thread-safe.
class StoredBytes {
 public:
  // FAILED_PRECONDITION when the database predates the schema version that counts specs.
  static absl::StatusOr<std::unique_ptr<StoredBytes>> Open(const StoreLocation& location);
  virtual ~StoredBytes() = default;

  // Zeros for an owner who keeps nothing.
  virtual absl::StatusOr<OwnerStoredBytes> OwnedBy(const std::string& owner) = 0;
  // Whether the owner's jobs or variants already refer to the kept code of this sha256 (hex):
  // another job of it adds only its spec.
  virtual absl::StatusOr<bool> Keeps(const std::string& owner, const std::string& sha256) = 0;
};

}  // namespace kbench::store
