// Registered user variants (issue 10): a user kernel stored under a name per operation, so that
// any job can list it among its variants ("fused,@my_online"). The store holds the kernel as
// the API gave it (a serialized kbench.v1.UserKernel) and knows nothing of its form beyond a
// label; kbenchd's variant service validates, and resolves names at submit. A second
// connection to kbench.db (or the fleet's PostgreSQL); JobStore::Open migrates first.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/store_location.h"

namespace kbench::store {

struct VariantRecord {
  std::string operation;
  // "@my_online": the name jobs list it by.
  std::string name;
  std::string owner;
  // "cuda", "ptx", "cubin" or "triton".
  std::string form;
  // sha256 of the code, hex.
  std::string sha256;
  int64_t code_bytes = 0;
  // The serialized kbench.v1.UserKernel; empty in List's summaries.
  std::string kernel;
  int64_t create_time_ns = 0;  // Unix epoch nanoseconds
};

// Thread-safe.
class VariantStore {
 public:
  static absl::StatusOr<std::unique_ptr<VariantStore>> Open(const StoreLocation& location);
  virtual ~VariantStore() = default;

  // ALREADY_EXISTS when the operation already has a variant of that name.
  virtual absl::Status Add(const VariantRecord& record) = 0;
  // nullopt when there is none.
  virtual absl::StatusOr<std::optional<VariantRecord>> Get(const std::string& operation,
                                                           const std::string& name) = 0;
  // Summaries (no kernel), by operation then name; `operation` empty: every operation.
  virtual absl::StatusOr<std::vector<VariantRecord>> List(const std::string& operation) = 0;
  // False when there was none.
  virtual absl::StatusOr<bool> Remove(const std::string& operation, const std::string& name) = 0;
  virtual absl::StatusOr<int64_t> CountOwnedBy(const std::string& owner) = 0;
};

}  // namespace kbench::store
