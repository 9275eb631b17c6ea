// The sweep rows of JobStore::DeleteSweep, on SQLite or PostgreSQL: the tables of migration 2.
#include "server/store/sweep_rows.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/store/job_rows.h"

namespace kbench::store::internal {
namespace {

// At most this many unfinished points are named in a refusal.
constexpr size_t kNamedPoints = 10;

// A one-off statement `sql` with `sweep_id` bound to its ?1.
absl::StatusOr<std::unique_ptr<Statement>> PrepareForSweep(Database* db,
                                                           const std::string& sweep_id,
                                                           const char* sql,
                                                           absl::string_view operation) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> statement, db->Prepare(sql, operation));
  KBENCH_RETURN_IF_ERROR(statement->BindText(1, sweep_id));
  return statement;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> DeletableSweepJobs(Database* db,
                                                            const std::string& sweep_id) {
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> sweep,
      PrepareForSweep(db, sweep_id, "SELECT state FROM sweeps WHERE id = ?1", "find a sweep"));
  KBENCH_ASSIGN_OR_RETURN(const bool found, sweep->Step());
  if (!found) return absl::NotFoundError(absl::StrCat("sweep '", sweep_id, "' not found"));
  const std::string state = sweep->ColumnText(0);
  sweep.reset();
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> points,
      PrepareForSweep(db, sweep_id,
                      "SELECT j.id, j.state FROM sweep_points p JOIN jobs j ON j.id = p.job_id "
                      "WHERE p.sweep_id = ?1 ORDER BY p.idx",
                      "list a sweep's points"));
  std::vector<std::string> ids;
  std::vector<std::string> unfinished;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(const bool row, points->Step());
    if (!row) break;
    ids.push_back(points->ColumnText(0));
    const std::string job_state = points->ColumnText(1);
    if (job_state == "queued" || job_state == "running") {
      unfinished.push_back(absl::StrCat(ids.back(), " (", job_state, ")"));
    }
  }
  if (!unfinished.empty()) {
    const size_t named = std::min(unfinished.size(), kNamedPoints);
    return absl::FailedPreconditionError(absl::StrCat(
        "sweep ", sweep_id, " has ", unfinished.size(),
        " points not ended: ", absl::StrJoin(unfinished.begin(), unfinished.begin() + named, ", "),
        unfinished.size() > named ? ", ..." : "",
        "; cancel it (kbctl sweep cancel), then delete it once they ended"));
  }
  // Its reporter writes files and rows for it meanwhile: they would outlive it.
  if (state == "running" || state == "reporting") {
    return absl::FailedPreconditionError(
        absl::StrCat("sweep ", sweep_id, " is ", state,
                     ": its report is being written; delete it once it is done"));
  }
  return ids;
}

absl::Status DropSweepRows(Database* db, const std::string& sweep_id,
                           std::vector<ArtifactRecord>* report) {
  if (report != nullptr) {
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<Statement> files,
        PrepareForSweep(db, sweep_id,
                        "SELECT sweep_id, name, relative_path, content_type, size_bytes, sha256, "
                        "create_time_ns FROM sweep_artifacts WHERE sweep_id = ?1",
                        "list a deleted sweep's report files"));
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(const bool row, files->Step());
      if (!row) break;
      report->push_back(ReadArtifact(*files));
    }
  }
  for (const char* sql :
       {"DELETE FROM sweep_artifacts WHERE sweep_id = ?1",
        "DELETE FROM sweep_points WHERE sweep_id = ?1", "DELETE FROM sweeps WHERE id = ?1"}) {
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> drop,
                            PrepareForSweep(db, sweep_id, sql, "delete a sweep's rows"));
    KBENCH_RETURN_IF_ERROR(drop->Run());
  }
  return absl::OkStatus();
}

}  // namespace kbench::store::internal
