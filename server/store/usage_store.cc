// UsageStore on SQLite: the usage_charges table of migration 2.
#include "server/store/usage_store.h"

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/store/database.h"
#include "server/store/schema.h"
#include "server/store/store_location.h"

namespace kbench::store {
namespace {

// usage_charges arrived in migration 2.
constexpr int kUsageSchemaVersion = 2;

using internal::Database;
using internal::ScopedReset;
using internal::Statement;

class SqlUsageStore final : public UsageStore {
 public:
  explicit SqlUsageStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::Status Prepare() {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(
        record_,
        db_->Prepare(
            "INSERT INTO usage_charges (job_id, attempt, owner, device, similar_key, "
            "succeeded, gpu_microseconds, end_time_ns) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
            "ON CONFLICT (job_id, attempt) DO UPDATE SET owner = excluded.owner, "
            "device = excluded.device, similar_key = excluded.similar_key, "
            "succeeded = excluded.succeeded, gpu_microseconds = excluded.gpu_microseconds, "
            "end_time_ns = excluded.end_time_ns",
            "record usage"));
    KBENCH_ASSIGN_OR_RETURN(
        all_, db_->Prepare("SELECT job_id, attempt, owner, device, similar_key, succeeded, "
                           "gpu_microseconds, end_time_ns FROM usage_charges "
                           "ORDER BY end_time_ns, job_id, attempt",
                           "list usage"));
    return absl::OkStatus();
  }

  absl::Status Record(const UsageRecord& r) override {
    absl::MutexLock lock(&mu_);
    Statement& s = *record_;
    ScopedReset reset(&s);
    KBENCH_RETURN_IF_ERROR(s.BindText(1, r.job_id));
    KBENCH_RETURN_IF_ERROR(s.BindInt64(2, r.attempt));
    KBENCH_RETURN_IF_ERROR(s.BindText(3, r.owner));
    KBENCH_RETURN_IF_ERROR(s.BindText(4, r.device));
    KBENCH_RETURN_IF_ERROR(s.BindText(5, r.similar_key));
    KBENCH_RETURN_IF_ERROR(s.BindInt64(6, r.succeeded ? 1 : 0));
    KBENCH_RETURN_IF_ERROR(s.BindInt64(7, r.gpu_microseconds < 0 ? 0 : r.gpu_microseconds));
    KBENCH_RETURN_IF_ERROR(s.BindInt64(8, r.end_time_ns));
    return s.Run();
  }

  absl::StatusOr<std::vector<UsageRecord>> All() override {
    absl::MutexLock lock(&mu_);
    Statement& s = *all_;
    ScopedReset reset(&s);
    std::vector<UsageRecord> out;
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      UsageRecord r;
      r.job_id = s.ColumnText(0);
      r.attempt = static_cast<int32_t>(s.ColumnInt64(1));
      r.owner = s.ColumnText(2);
      r.device = s.ColumnText(3);
      r.similar_key = s.ColumnText(4);
      r.succeeded = s.ColumnInt64(5) != 0;
      r.gpu_microseconds = s.ColumnInt64(6);
      r.end_time_ns = s.ColumnInt64(7);
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  absl::Mutex mu_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Statement> record_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> all_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<UsageStore>> UsageStore::Open(const std::string& data_dir) {
  return Open(StoreLocation{.data_dir = data_dir, .postgres_url = "", .node = ""});
}

absl::StatusOr<std::unique_ptr<UsageStore>> UsageStore::Open(const StoreLocation& location) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ConnectStoreDatabase(location));
  KBENCH_ASSIGN_OR_RETURN(int version, internal::CurrentSchemaVersion(db.get()));
  if (version < kUsageSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("usage store: ", db->path(), " has schema version ", version, "; usage needs ",
                     kUsageSchemaVersion, " (open the job store first, which migrates it)"));
  }
  auto store = std::make_unique<SqlUsageStore>(std::move(db));
  KBENCH_RETURN_IF_ERROR(store->Prepare());
  return std::unique_ptr<UsageStore>(std::move(store));
}

}  // namespace kbench::store
