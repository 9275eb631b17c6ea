// StoredBytes on SQLite or PostgreSQL: one statement of sums, each served by an index on the
// owner (jobs_stored_by_owner of migration 12, user_variants_by_owner, sweeps_by_owner_key,
// job_code_refs_by_owner of migration 14) and the artifacts' and code blobs' primary keys.
#include "server/store/stored_bytes.h"

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/store/database.h"
#include "server/store/schema.h"

namespace kbench::store {
namespace {

// jobs.spec_bytes arrived in migration 12, code_blobs in 13.
constexpr int kStoredBytesSchemaVersion = 13;

using internal::Database;
using internal::ScopedReset;
using internal::Statement;

// length() of a BLOB (SQLite) or BYTEA (PostgreSQL) is its size in bytes, read from the value's
// header, not its content. A variant's and a sweep's rows are few per owner (variants are capped
// by --max-variants-per-owner), so they are summed from their rows; a job's spec_bytes, from
// the index alone. A kernel's code kept in code_blobs counts once per owner however many of the
// owner's jobs and variants refer to it (IN, not a join, so each blob is summed once).
// CAST: PostgreSQL's SUM of a BIGINT is a NUMERIC.
constexpr char kOwnedBy[] =
    "SELECT "
    "CAST((SELECT COALESCE(SUM(spec_bytes), 0) FROM jobs WHERE owner = ?1) AS BIGINT), "
    "CAST((SELECT COALESCE(SUM(artifacts.size_bytes), 0) FROM artifacts "
    "JOIN jobs ON jobs.id = artifacts.job_id WHERE jobs.owner = ?1) AS BIGINT), "
    "CAST((SELECT COALESCE(SUM(length(kernel)), 0) FROM user_variants WHERE owner = ?1) "
    "AS BIGINT), "
    "CAST((SELECT COALESCE(SUM(length(spec)), 0) FROM sweeps WHERE owner = ?1) AS BIGINT), "
    "CAST((SELECT COALESCE(SUM(sweep_artifacts.size_bytes), 0) FROM sweep_artifacts "
    "JOIN sweeps ON sweeps.id = sweep_artifacts.sweep_id WHERE sweeps.owner = ?1) AS BIGINT), "
    "CAST((SELECT COALESCE(SUM(size_bytes), 0) FROM code_blobs WHERE sha256 IN "
    "(SELECT sha256 FROM job_code_refs WHERE owner = ?1 "
    "UNION SELECT sha256 FROM user_variants WHERE owner = ?1)) AS BIGINT)";

constexpr char kKeeps[] =
    "SELECT 1 FROM code_blobs WHERE sha256 = ?2 AND (EXISTS (SELECT 1 FROM job_code_refs "
    "WHERE owner = ?1 AND sha256 = ?2) OR EXISTS (SELECT 1 FROM user_variants "
    "WHERE owner = ?1 AND sha256 = ?2))";

class SqlStoredBytes final : public StoredBytes {
 public:
  explicit SqlStoredBytes(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::Status Prepare() {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(owned_by_, db_->Prepare(kOwnedBy, "sum an owner's stored bytes"));
    KBENCH_ASSIGN_OR_RETURN(keeps_, db_->Prepare(kKeeps, "find an owner's kept code"));
    return absl::OkStatus();
  }

  absl::StatusOr<OwnerStoredBytes> OwnedBy(const std::string& owner) override {
    absl::MutexLock lock(&mu_);
    Statement& s = *owned_by_;
    ScopedReset reset(&s);
    KBENCH_RETURN_IF_ERROR(s.BindText(1, owner));
    KBENCH_ASSIGN_OR_RETURN(const bool row, s.Step());
    if (!row) return absl::InternalError("sum an owner's stored bytes: no row");
    OwnerStoredBytes bytes;
    bytes.job_specs = s.ColumnInt64(0);
    bytes.artifacts = s.ColumnInt64(1);
    bytes.variants = s.ColumnInt64(2);
    bytes.sweeps = s.ColumnInt64(3) + s.ColumnInt64(4);
    bytes.code = s.ColumnInt64(5);
    return bytes;
  }

  absl::StatusOr<bool> Keeps(const std::string& owner, const std::string& sha256) override {
    absl::MutexLock lock(&mu_);
    Statement& s = *keeps_;
    ScopedReset reset(&s);
    KBENCH_RETURN_IF_ERROR(s.BindText(1, owner));
    KBENCH_RETURN_IF_ERROR(s.BindText(2, sha256));
    return s.Step();
  }

 private:
  absl::Mutex mu_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Statement> owned_by_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> keeps_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<StoredBytes>> StoredBytes::Open(const StoreLocation& location) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ConnectStoreDatabase(location));
  KBENCH_ASSIGN_OR_RETURN(const int version, internal::CurrentSchemaVersion(db.get()));
  if (version < kStoredBytesSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "stored bytes: ", db->path(), " has schema version ", version, "; counting needs ",
        kStoredBytesSchemaVersion, " (open the job store first, which migrates it)"));
  }
  auto counter = std::make_unique<SqlStoredBytes>(std::move(db));
  KBENCH_RETURN_IF_ERROR(counter->Prepare());
  return std::unique_ptr<StoredBytes>(std::move(counter));
}

}  // namespace kbench::store
