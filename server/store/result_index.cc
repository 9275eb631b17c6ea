// SQL of the result index (schema migration 2).
#include "server/store/result_index.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "server/store/database.h"

namespace kbench::store::internal {
namespace {

constexpr char kColumns[] =
    "seq, job_id, variant, module_sha256, kernel, shape, dtype, params, mode, device, "
    "device_model, driver_version, kbench_version, owner, finish_time_ns, median_seconds, "
    "median_ci_low_seconds, median_ci_high_seconds, samples, correct, impossible, contended, "
    "placements, ranked, confirmation, custom_stopping, clean, joules_per_launch";

IndexedResult ReadRow(Statement& row) {
  IndexedResult r;
  r.seq = row.ColumnInt64(0);
  r.job_id = row.ColumnText(1);
  r.variant = row.ColumnText(2);
  r.module_sha256 = row.ColumnText(3);
  r.kernel = row.ColumnText(4);
  r.shape = row.ColumnText(5);
  r.dtype = row.ColumnText(6);
  r.params = row.ColumnText(7);
  r.mode = row.ColumnText(8);
  r.device = row.ColumnText(9);
  r.device_model = row.ColumnText(10);
  r.driver_version = row.ColumnText(11);
  r.kbench_version = row.ColumnText(12);
  r.owner = row.ColumnText(13);
  r.finish_time_ns = row.ColumnInt64(14);
  r.median_seconds = row.ColumnDouble(15);
  r.median_ci_low_seconds = row.ColumnDouble(16);
  r.median_ci_high_seconds = row.ColumnDouble(17);
  r.samples = row.ColumnInt64(18);
  r.correct = row.ColumnInt64(19) != 0;
  r.impossible = row.ColumnInt64(20) != 0;
  r.contended = row.ColumnInt64(21) != 0;
  r.placements = row.ColumnInt64(22);
  r.ranked = row.ColumnInt64(23) != 0;
  r.confirmation = row.ColumnInt64(24) != 0;
  r.custom_stopping = row.ColumnInt64(25) != 0;
  r.clean = row.ColumnInt64(26) != 0;
  r.joules_per_launch = row.ColumnDouble(27);
  return r;
}

absl::StatusOr<std::vector<IndexedResult>> ReadRows(Statement& query) {
  std::vector<IndexedResult> rows;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) break;
    rows.push_back(ReadRow(query));
  }
  return rows;
}

absl::Status BindRow(Statement& insert, const IndexedResult& r) {
  const std::string text[] = {
      r.job_id, r.variant, r.module_sha256, r.kernel,         r.shape,          r.dtype, r.params,
      r.mode,   r.device,  r.device_model,  r.driver_version, r.kbench_version, r.owner};
  int index = 1;
  for (const std::string& value : text) KBENCH_RETURN_IF_ERROR(insert.BindText(index++, value));
  KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, r.finish_time_ns));
  for (double value : {r.median_seconds, r.median_ci_low_seconds, r.median_ci_high_seconds}) {
    KBENCH_RETURN_IF_ERROR(insert.BindDouble(index++, value));
  }
  KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, r.samples));
  for (bool flag : {r.correct, r.impossible, r.contended}) {
    KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, flag ? 1 : 0));
  }
  KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, r.placements));
  KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, r.ranked ? 1 : 0));
  KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, r.confirmation ? 1 : 0));
  KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, r.custom_stopping ? 1 : 0));
  KBENCH_RETURN_IF_ERROR(insert.BindInt64(index++, r.clean ? 1 : 0));
  KBENCH_RETURN_IF_ERROR(insert.BindDouble(index++, r.joules_per_launch));
  return absl::OkStatus();
}

// Binds `values` in order to a statement prepared from SQL built with one '?' per value.
absl::Status BindTexts(Statement& query, const std::vector<std::string>& values) {
  int index = 1;
  for (const std::string& value : values) KBENCH_RETURN_IF_ERROR(query.BindText(index++, value));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ResultIndexQueries>> ResultIndexQueries::Prepare(Database* db) {
  std::unique_ptr<ResultIndexQueries> q(new ResultIndexQueries(db));
  // job_id is no foreign key (history outlives job pruning), so Index looks the job up itself.
  KBENCH_ASSIGN_OR_RETURN(q->find_job_,
                          db->Prepare("SELECT 1 FROM jobs WHERE id = ?1", "find indexed job"));
  KBENCH_ASSIGN_OR_RETURN(
      q->delete_job_rows_,
      db->Prepare("DELETE FROM result_index WHERE job_id = ?1", "delete a job's indexed results"));
  KBENCH_ASSIGN_OR_RETURN(
      q->insert_row_,
      db->Prepare(
          absl::StrCat("INSERT INTO result_index (",
                       std::string(kColumns).substr(sizeof("seq, ") - 1),
                       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                       "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)"),
          "index a result"));
  return q;
}

ResultIndexQueries::ResultIndexQueries(Database* db) : db_(db) {}

ResultIndexQueries::~ResultIndexQueries() = default;

absl::Status ResultIndexQueries::Index(const std::vector<IndexedResult>& rows) {
  if (rows.empty()) return absl::OkStatus();
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                          Transaction::Begin(db_, "index results"));
  {
    ScopedReset reset(find_job_.get());
    KBENCH_RETURN_IF_ERROR(find_job_->BindText(1, rows.front().job_id));
    KBENCH_ASSIGN_OR_RETURN(const bool found, find_job_->Step());
    if (!found) {
      return absl::NotFoundError(absl::StrCat("job '", rows.front().job_id, "' not found"));
    }
  }
  {
    ScopedReset reset(delete_job_rows_.get());
    KBENCH_RETURN_IF_ERROR(delete_job_rows_->BindText(1, rows.front().job_id));
    KBENCH_RETURN_IF_ERROR(delete_job_rows_->Run());
  }
  for (const IndexedResult& r : rows) {
    ScopedReset reset(insert_row_.get());
    KBENCH_RETURN_IF_ERROR(BindRow(*insert_row_, r));
    KBENCH_RETURN_IF_ERROR(insert_row_->Run());
  }
  return transaction->Commit();
}

absl::StatusOr<std::vector<IndexedResult>> ResultIndexQueries::History(
    const HistoryFilter& filter) {
  if (filter.limit < 1) {
    return absl::InvalidArgumentError(absl::StrCat("limit must be at least 1, got ", filter.limit));
  }
  std::string sql = absl::StrCat("SELECT ", kColumns, " FROM result_index WHERE kernel = ?");
  std::vector<std::string> values = {filter.kernel};
  const std::pair<const char*, const std::string*> optional[] = {
      {" AND variant = ?", &filter.variant},
      {" AND shape = ?", &filter.shape},
      {" AND dtype = ?", &filter.dtype},
      {" AND mode = ?", &filter.mode}};
  for (const auto& [condition, value] : optional) {
    if (value->empty()) continue;
    absl::StrAppend(&sql, condition);
    values.push_back(*value);
  }
  if (!filter.device.empty()) {
    absl::StrAppend(&sql, " AND (device = ? OR device_model = ?)");
    values.push_back(filter.device);
    values.push_back(filter.device);
  }
  if (!filter.include_unclean) absl::StrAppend(&sql, " AND clean = 1");
  if (filter.before_seq > 0) absl::StrAppend(&sql, " AND seq < ", filter.before_seq);
  absl::StrAppend(&sql, " ORDER BY seq DESC LIMIT ", filter.limit);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> query, db_->Prepare(sql, "read history"));
  KBENCH_RETURN_IF_ERROR(BindTexts(*query, values));
  return ReadRows(*query);
}

absl::StatusOr<std::vector<IndexedResult>> ResultIndexQueries::LeaderboardRows(
    const LeaderboardFilter& filter) {
  if (filter.shapes.empty()) return absl::InvalidArgumentError("a leaderboard needs a shape");
  std::vector<std::string> marks(filter.shapes.size(), "?");
  std::string sql = absl::StrCat(
      "SELECT ", kColumns,
      " FROM result_index WHERE kernel = ? AND dtype = ? AND device_model = ? AND shape IN (",
      absl::StrJoin(marks, ", "), ") AND correct = 1 AND impossible = 0 AND contended = 0");
  std::vector<std::string> values = {filter.kernel, filter.dtype, filter.device_model};
  values.insert(values.end(), filter.shapes.begin(), filter.shapes.end());
  if (!filter.mode.empty()) {
    absl::StrAppend(&sql, " AND mode = ?");
    values.push_back(filter.mode);
  }
  if (filter.ranked_only) absl::StrAppend(&sql, " AND ranked = 1");
  if (!filter.include_unclean) absl::StrAppend(&sql, " AND clean = 1");
  if (filter.energy_only) absl::StrAppend(&sql, " AND joules_per_launch > 0");
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> query, db_->Prepare(sql, "read leaderboard"));
  KBENCH_RETURN_IF_ERROR(BindTexts(*query, values));
  return ReadRows(*query);
}

}  // namespace kbench::store::internal
