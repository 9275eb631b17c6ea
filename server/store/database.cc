// Failure kinds as Status payloads, and the write transaction over any engine.
#include "server/store/database.h"

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kbench::store::internal {
namespace {

constexpr absl::string_view kFailurePayload = "type.kbench.dev/store.SqlFailure";

}  // namespace

absl::Status WithSqlFailure(absl::Status status, SqlFailure failure) {
  if (!status.ok() && failure != SqlFailure::kNone) {
    status.SetPayload(kFailurePayload, absl::Cord(absl::StrCat(static_cast<int>(failure))));
  }
  return status;
}

SqlFailure SqlFailureOf(const absl::Status& status) {
  auto payload = status.GetPayload(kFailurePayload);
  int value = 0;
  if (!payload.has_value() || !absl::SimpleAtoi(std::string(*payload), &value)) {
    return status.ok() ? SqlFailure::kNone : SqlFailure::kOther;
  }
  return static_cast<SqlFailure>(value);
}

absl::StatusOr<std::unique_ptr<Transaction>> Transaction::Begin(Database* db,
                                                                absl::string_view operation) {
  KBENCH_RETURN_IF_ERROR(db->BeginWrite(operation));
  return std::unique_ptr<Transaction>(new Transaction(db, std::string(operation)));
}

absl::StatusOr<std::unique_ptr<Transaction>> Transaction::BeginLocal(Database* db,
                                                                     absl::string_view operation) {
  KBENCH_RETURN_IF_ERROR(db->BeginLocal(operation));
  return std::unique_ptr<Transaction>(new Transaction(db, std::string(operation)));
}

Transaction::~Transaction() {
  // Nothing to report to: the caller is already returning the error that got us here.
  if (!done_) db_->Rollback();
}

absl::Status Transaction::Commit() {
  done_ = true;
  absl::Status status = db_->Commit(operation_);
  // A failed COMMIT (e.g. SQLite's BUSY) can leave the transaction open; end it.
  if (!status.ok()) db_->Rollback();
  return status;
}

}  // namespace kbench::store::internal
