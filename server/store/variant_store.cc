// VariantStore on SQLite or PostgreSQL: the user_variants table of migration 6; a large
// kernel's code in code_blobs (migration 14), shared with the jobs that run it.
#include "server/store/variant_store.h"

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/store/code_blobs.h"
#include "server/store/database.h"
#include "server/store/schema.h"

namespace kbench::store {
namespace {

// user_variants arrived in migration 6, code_blobs in 13.
constexpr int kVariantSchemaVersion = 13;
constexpr char kSummaryColumns[] =
    "operation, name, owner, form, sha256, code_bytes, create_time_ns";

using internal::Database;
using internal::ScopedReset;
using internal::Statement;
using internal::Transaction;

VariantRecord ReadSummary(Statement& s) {
  VariantRecord r;
  r.operation = s.ColumnText(0);
  r.name = s.ColumnText(1);
  r.owner = s.ColumnText(2);
  r.form = s.ColumnText(3);
  r.sha256 = s.ColumnText(4);
  r.code_bytes = s.ColumnInt64(5);
  r.create_time_ns = s.ColumnInt64(6);
  return r;
}

class SqlVariantStore final : public VariantStore {
 public:
  explicit SqlVariantStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::Status Prepare() {
    absl::MutexLock lock(&mu_);
    // RETURNING yields a row only when the insert happened: a name taken yields none.
    KBENCH_ASSIGN_OR_RETURN(
        add_, db_->Prepare("INSERT INTO user_variants (operation, name, owner, form, sha256, "
                           "code_bytes, kernel, create_time_ns) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
                           "ON CONFLICT (operation, name) DO NOTHING RETURNING name",
                           "register a variant"));
    KBENCH_ASSIGN_OR_RETURN(get_, db_->Prepare(absl::StrCat("SELECT ", kSummaryColumns,
                                                            ", kernel FROM user_variants "
                                                            "WHERE operation = ?1 AND name = ?2"),
                                               "read a variant"));
    KBENCH_ASSIGN_OR_RETURN(
        list_all_, db_->Prepare(absl::StrCat("SELECT ", kSummaryColumns,
                                             " FROM user_variants ORDER BY operation, name"),
                                "list variants"));
    KBENCH_ASSIGN_OR_RETURN(list_op_,
                            db_->Prepare(absl::StrCat("SELECT ", kSummaryColumns,
                                                      " FROM user_variants WHERE operation = ?1 "
                                                      "ORDER BY name"),
                                         "list an operation's variants"));
    KBENCH_ASSIGN_OR_RETURN(
        remove_, db_->Prepare("DELETE FROM user_variants WHERE operation = ?1 AND name = ?2 "
                              "RETURNING name",
                              "remove a variant"));
    KBENCH_ASSIGN_OR_RETURN(count_,
                            db_->Prepare("SELECT COUNT(*) FROM user_variants WHERE owner = ?1",
                                         "count an owner's variants"));
    KBENCH_ASSIGN_OR_RETURN(code_, internal::CodeBlobs::Prepare(db_.get()));
    return absl::OkStatus();
  }

  absl::Status Add(const VariantRecord& r) override {
    absl::MutexLock lock(&mu_);
    // One transaction: a name already taken rolls back the code kept for it.
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                            Transaction::Begin(db_.get(), "register a variant"));
    KBENCH_ASSIGN_OR_RETURN(const std::string kernel,
                            code_->KeepKernelCode(r.kernel, r.owner, r.create_time_ns));
    Statement& s = *add_;
    ScopedReset reset(&s);
    KBENCH_RETURN_IF_ERROR(s.BindText(1, r.operation));
    KBENCH_RETURN_IF_ERROR(s.BindText(2, r.name));
    KBENCH_RETURN_IF_ERROR(s.BindText(3, r.owner));
    KBENCH_RETURN_IF_ERROR(s.BindText(4, r.form));
    KBENCH_RETURN_IF_ERROR(s.BindText(5, r.sha256));
    KBENCH_RETURN_IF_ERROR(s.BindInt64(6, r.code_bytes));
    KBENCH_RETURN_IF_ERROR(s.BindBlob(7, kernel));
    KBENCH_RETURN_IF_ERROR(s.BindInt64(8, r.create_time_ns));
    KBENCH_ASSIGN_OR_RETURN(const bool inserted, s.Step());
    if (inserted) {
      KBENCH_ASSIGN_OR_RETURN(const bool more, s.Step());  // finish the statement
      (void)more;
      return transaction->Commit();
    }
    return absl::AlreadyExistsError(
        absl::StrCat(r.operation, " already has a variant named ", r.name));
  }

  absl::StatusOr<std::optional<VariantRecord>> Get(const std::string& operation,
                                                   const std::string& name) override {
    absl::MutexLock lock(&mu_);
    Statement& s = *get_;
    ScopedReset reset(&s);
    KBENCH_RETURN_IF_ERROR(s.BindText(1, operation));
    KBENCH_RETURN_IF_ERROR(s.BindText(2, name));
    KBENCH_ASSIGN_OR_RETURN(const bool row, s.Step());
    if (!row) return std::nullopt;
    VariantRecord r = ReadSummary(s);
    r.kernel = s.ColumnBlob(7);
    KBENCH_RETURN_IF_ERROR(code_->FillKernelCode(&r.kernel));
    return r;
  }

  absl::StatusOr<std::vector<VariantRecord>> List(const std::string& operation) override {
    absl::MutexLock lock(&mu_);
    Statement& s = operation.empty() ? *list_all_ : *list_op_;
    ScopedReset reset(&s);
    if (!operation.empty()) KBENCH_RETURN_IF_ERROR(s.BindText(1, operation));
    std::vector<VariantRecord> out;
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(const bool row, s.Step());
      if (!row) break;
      out.push_back(ReadSummary(s));
    }
    return out;
  }

  absl::StatusOr<bool> Remove(const std::string& operation, const std::string& name) override {
    absl::MutexLock lock(&mu_);
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                            Transaction::Begin(db_.get(), "remove a variant"));
    bool removed = false;
    {
      Statement& s = *remove_;
      ScopedReset reset(&s);
      KBENCH_RETURN_IF_ERROR(s.BindText(1, operation));
      KBENCH_RETURN_IF_ERROR(s.BindText(2, name));
      KBENCH_ASSIGN_OR_RETURN(removed, s.Step());
      if (removed) {
        KBENCH_ASSIGN_OR_RETURN(const bool more, s.Step());
        (void)more;
      }
    }
    // Its code goes unless a job still runs it (or another variant is the same code).
    if (removed) KBENCH_RETURN_IF_ERROR(code_->FreeUnreferenced());
    KBENCH_RETURN_IF_ERROR(transaction->Commit());
    return removed;
  }

  absl::StatusOr<int64_t> CountOwnedBy(const std::string& owner) override {
    absl::MutexLock lock(&mu_);
    Statement& s = *count_;
    ScopedReset reset(&s);
    KBENCH_RETURN_IF_ERROR(s.BindText(1, owner));
    KBENCH_ASSIGN_OR_RETURN(const bool row, s.Step());
    return row ? s.ColumnInt64(0) : 0;
  }

 private:
  absl::Mutex mu_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Statement> add_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> get_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> list_all_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> list_op_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> remove_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Statement> count_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<internal::CodeBlobs> code_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<VariantStore>> VariantStore::Open(const StoreLocation& location) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ConnectStoreDatabase(location));
  KBENCH_ASSIGN_OR_RETURN(int version, internal::CurrentSchemaVersion(db.get()));
  if (version < kVariantSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "variant store: ", db->path(), " has schema version ", version, "; variants need ",
        kVariantSchemaVersion, " (open the job store first, which migrates it)"));
  }
  auto store = std::make_unique<SqlVariantStore>(std::move(db));
  KBENCH_RETURN_IF_ERROR(store->Prepare());
  return std::unique_ptr<VariantStore>(std::move(store));
}

}  // namespace kbench::store
