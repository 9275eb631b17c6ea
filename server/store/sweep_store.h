// The durable record of sweeps: each sweep, the job of each of its points and the artifacts of
// its report, in the same SQLite file as the jobs (schema migration 2). The jobs themselves
// stay in the JobStore, so a sweep survives a restart exactly as its jobs do.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "server/store/job_store.h"
#include "server/store/store_location.h"

namespace kbench::store {

enum class SweepState { kRunning, kReporting, kDone, kCancelled };
std::string SweepStateName(SweepState state);  // "running", "reporting", "done", "cancelled"

struct SweepPointRecord {
  int32_t index = 0;
  std::string job_id;
  // Serialized kbench.v1.SweepPoint (its axis values); the store does not interpret it.
  std::string point;
};

struct SweepRecord {
  std::string id;
  int64_t seq = 0;
  std::string owner;
  SweepState state = SweepState::kRunning;
  bool cancel_requested = false;
  std::string idempotency_key;
  int64_t create_time_ns = 0;
  int64_t finish_time_ns = 0;
  // Serialized kbench.v1.SweepSpec.
  std::string spec;
  std::string error;
  std::vector<SweepPointRecord> points;
};

// Thread-safe: one connection guarded by a mutex.
class SweepStore {
 public:
  // Connects to the location's database, which JobStore::Open must have migrated.
  static absl::StatusOr<std::unique_ptr<SweepStore>> Open(const StoreLocation& location);
  // Opens `data_dir`/kbench.db, which JobStore::Open must have migrated already.
  // FAILED_PRECONDITION when its schema predates sweeps.
  static absl::StatusOr<std::unique_ptr<SweepStore>> Open(const std::string& data_dir);
  virtual ~SweepStore() = default;

  // Inserts a RUNNING sweep and its points in one transaction. When its owner already used its
  // idempotency key, nothing is inserted and that sweep is returned with `false`.
  virtual absl::StatusOr<std::pair<SweepRecord, bool>> Insert(SweepRecord record) = 0;
  // The sweep `owner` submitted with this idempotency key, if any (keys are unique per owner).
  virtual absl::StatusOr<std::optional<SweepRecord>> FindByKey(const std::string& owner,
                                                               const std::string& key) = 0;
  // NOT_FOUND naming the id when absent.
  virtual absl::StatusOr<SweepRecord> Get(const std::string& id) = 0;
  // Newest first.
  virtual absl::StatusOr<std::vector<SweepRecord>> List(int32_t limit) = 0;
  // RUNNING and REPORTING sweeps, oldest first: the reporter's work after a restart too.
  virtual absl::StatusOr<std::vector<SweepRecord>> ListUnfinished() = 0;
  virtual absl::Status RequestCancel(const std::string& id) = 0;
  virtual absl::Status SetState(const std::string& id, SweepState state, const std::string& error,
                                int64_t finish_time_ns) = 0;
  // RUNNING -> REPORTING, only when the sweep is still RUNNING (or, with `resume`, already
  // REPORTING: a reporter that stopped mid-report left it so). False when another reporter took
  // it: in a fleet every node's reporter sees every sweep, and one reports it.
  virtual absl::StatusOr<bool> BeginReport(const std::string& id, bool resume) = 0;

  // Records (or replaces) an artifact; ArtifactRecord.job_id holds the sweep id.
  virtual absl::Status AddArtifact(const ArtifactRecord& artifact) = 0;
  virtual absl::StatusOr<std::vector<ArtifactRecord>> Artifacts(const std::string& sweep_id) = 0;
};

}  // namespace kbench::store
