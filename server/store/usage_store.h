// The durable record of GPU time: one row per run of a job (owner, device, how long), written
// when the run ends. The scheduler replays it at start, so fair share, daily quotas and queue
// estimates survive a restart. A second connection to kbench.db; JobStore::Open migrates first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/store_location.h"

namespace kbench::store {

struct UsageRecord {
  std::string job_id;
  int32_t attempt = 0;
  std::string owner;
  std::string device;
  // Which past runs predict this one: kernel, variants and device (see the scheduler).
  std::string similar_key;
  bool succeeded = false;
  int64_t gpu_microseconds = 0;
  int64_t end_time_ns = 0;  // Unix epoch nanoseconds
};

// Thread-safe.
class UsageStore {
 public:
  // Connects to the location's database, which JobStore::Open must have migrated.
  static absl::StatusOr<std::unique_ptr<UsageStore>> Open(const StoreLocation& location);
  // Opens `data_dir`/kbench.db, which JobStore::Open must have created and migrated.
  static absl::StatusOr<std::unique_ptr<UsageStore>> Open(const std::string& data_dir);
  virtual ~UsageStore() = default;

  // Records a run; the same (job, attempt) again replaces it.
  virtual absl::Status Record(const UsageRecord& record) = 0;
  // Every run recorded, oldest end first.
  virtual absl::StatusOr<std::vector<UsageRecord>> All() = 0;
};

}  // namespace kbench::store
