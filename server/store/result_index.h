// The result index: one row per variant of a succeeded benchmark job, under the key that makes
// results comparable over time (operation; variant or user module; shape; dtype; params; mode;
// buffer placements; device model; driver; kbench version). History and leaderboards read it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::store {

struct IndexedResult {
  // Assigned by the store: newest rows have the largest seq.
  int64_t seq = 0;
  std::string job_id;
  std::string variant;
  std::string module_sha256;  // empty for catalogue variants
  std::string kernel;
  std::string shape;   // "4096x4096"
  std::string dtype;   // "f32"
  std::string params;  // "layers=4,..." sorted by name; empty when none
  std::string mode;    // "cold", "hot", "graph"
  std::string device;  // "cuda:0"
  std::string device_model;
  std::string driver_version;
  std::string kbench_version;
  std::string owner;
  int64_t finish_time_ns = 0;
  double median_seconds = 0;
  double median_ci_low_seconds = 0;
  double median_ci_high_seconds = 0;
  int64_t samples = 0;
  bool correct = false;
  bool impossible = false;
  bool contended = false;
  // Buffer placements pooled in the result (JobSpec.placements; 1 for a job of one).
  int64_t placements = 1;
  // A ranked run's result that converged without drifting (issue 23): what ranked leaderboards
  // count.
  bool ranked = false;
  // The run kbenchd submitted to confirm another ranked run (JobSpec.confirms_job).
  bool confirmation = false;
  // The job set a stopping rule of its own (any JobSpec.stopping field; migration 13).
  bool custom_stopping = false;
  // Its clean-measurement stamp found the sampling window clean, or took no readings (migration
  // 15; issue 29).
  bool clean = true;
  // Energy per launch; 0 where it was not measured (a measured energy is never 0).
  double joules_per_launch = 0;
};

// Empty strings match anything.
struct HistoryFilter {
  std::string kernel;
  std::string variant;
  std::string shape;
  std::string dtype;
  // Matches the device id or the device model.
  std::string device;
  std::string mode;
  // Only rows with seq < before_seq (0: no bound): the paging cursor.
  int64_t before_seq = 0;
  int32_t limit = 50;
  // Also rows whose clean stamp found contamination (left out by default).
  bool include_unclean = false;
};

struct LeaderboardFilter {
  std::string kernel;
  std::vector<std::string> shapes;
  std::string dtype;
  std::string device_model;
  std::string mode;  // empty: any
  // Only rows of ranked runs.
  bool ranked_only = false;
  // Also rows whose clean stamp found contamination (left out by default).
  bool include_unclean = false;
  // Only rows with a measured energy (a board by energy).
  bool energy_only = false;
};

namespace internal {

class Database;
class Statement;

// The SQL behind JobStore's result-index methods; the caller holds the store's mutex.
class ResultIndexQueries {
 public:
  static absl::StatusOr<std::unique_ptr<ResultIndexQueries>> Prepare(Database* db);
  ~ResultIndexQueries();

  absl::Status Index(const std::vector<IndexedResult>& rows);
  absl::StatusOr<std::vector<IndexedResult>> History(const HistoryFilter& filter);
  absl::StatusOr<std::vector<IndexedResult>> LeaderboardRows(const LeaderboardFilter& filter);

 private:
  explicit ResultIndexQueries(Database* db);
  Database* db_;
  std::unique_ptr<Statement> find_job_;
  std::unique_ptr<Statement> delete_job_rows_;
  std::unique_ptr<Statement> insert_row_;
};

}  // namespace internal
}  // namespace kbench::store
