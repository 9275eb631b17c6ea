// libpq behind the store's Database interface.
#include "server/store/postgres_db.h"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kbench::store::internal {
namespace {

// Parameter types, so PostgreSQL never has to guess one from its context.
constexpr Oid kInt8Oid = 20;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kTextOid = 25;
constexpr Oid kByteaOid = 17;

// Any fixed number: every kbench writer takes this one advisory lock (issue 14's "as SQLite").
constexpr int64_t kWriteLockKey = 0x6b62656e6368;  // "kbench"

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// SQLSTATE classes (PostgreSQL's Appendix A) to codes and failure kinds.
absl::StatusCode CodeFor(absl::string_view sqlstate) {
  if (sqlstate == "23505" || sqlstate == "23503" || sqlstate == "23514") {
    return absl::StatusCode::kFailedPrecondition;
  }
  if (absl::StartsWith(sqlstate, "08") || sqlstate == "57P01" || sqlstate == "57P03") {
    return absl::StatusCode::kUnavailable;
  }
  if (absl::StartsWith(sqlstate, "53")) return absl::StatusCode::kResourceExhausted;
  if (sqlstate == "40001" || sqlstate == "40P01") return absl::StatusCode::kAborted;
  if (sqlstate == "42501") return absl::StatusCode::kPermissionDenied;
  if (absl::StartsWith(sqlstate, "XX")) return absl::StatusCode::kDataLoss;
  return absl::StatusCode::kInternal;
}

SqlFailure FailureFor(absl::string_view sqlstate) {
  if (sqlstate == "23505") return SqlFailure::kUniqueViolation;
  if (sqlstate == "23503") return SqlFailure::kForeignKeyViolation;
  if (absl::StartsWith(sqlstate, "08") || absl::StartsWith(sqlstate, "53") ||
      absl::StartsWith(sqlstate, "57P") || sqlstate == "40001" || sqlstate == "40P01") {
    return SqlFailure::kStorage;
  }
  return SqlFailure::kOther;
}

std::string ConnectionMessage(PGconn* conn) {
  std::string message = PQerrorMessage(conn);
  absl::StripTrailingAsciiWhitespace(&message);
  return message;
}

// A failed or lost connection: no SQLSTATE, the message from libpq.
absl::Status ConnectionError(PGconn* conn, absl::string_view operation) {
  return WithSqlFailure(
      absl::UnavailableError(absl::StrCat("postgres ", operation, ": ", ConnectionMessage(conn))),
      SqlFailure::kStorage);
}

// `result` is null (out of memory, connection lost) or an error result.
absl::Status ResultError(PGconn* conn, const PGresult* result, absl::string_view operation) {
  if (result == nullptr) return ConnectionError(conn, operation);
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  if (state == nullptr) return ConnectionError(conn, operation);
  std::string message = PQresultErrorMessage(result);
  absl::StripTrailingAsciiWhitespace(&message);
  absl::Status status(CodeFor(state), absl::StrCat("postgres ", operation, ": ", message,
                                                   " (SQLSTATE ", state, ")"));
  return WithSqlFailure(std::move(status), FailureFor(state));
}

bool Succeeded(const PGresult* result) {
  if (result == nullptr) return false;
  ExecStatusType status = PQresultStatus(result);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

// bytea's text output: "\x" then two hex digits per byte.
std::string DecodeBytea(const char* text, int length) {
  if (length < 2 || text[0] != '\\' || text[1] != 'x') return std::string(text, length);
  std::string bytes;
  bytes.reserve((length - 2) / 2);
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
  };
  for (int i = 2; i + 1 < length; i += 2) {
    bytes.push_back(static_cast<char>(nibble(text[i]) << 4 | nibble(text[i + 1])));
  }
  return bytes;
}

class PostgresDatabase;

class PostgresStatement final : public Statement {
 public:
  PostgresStatement(PostgresDatabase* db, std::string sql, std::string operation)
      : db_(db), sql_(std::move(sql)), operation_(std::move(operation)) {}

  absl::Status BindInt64(int index, int64_t value) override {
    return Bind(index, kInt8Oid, absl::StrCat(value), false);
  }
  absl::Status BindDouble(int index, double value) override {
    char buffer[32];
    auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
    if (error != std::errc()) return absl::InternalError("format a double parameter");
    return Bind(index, kFloat8Oid, std::string(buffer, end), false);
  }
  absl::Status BindText(int index, const std::string& value) override {
    return Bind(index, kTextOid, value, false);
  }
  absl::Status BindTextOrNull(int index, const std::string& value) override {
    if (!value.empty()) return BindText(index, value);
    return Bind(index, kTextOid, std::nullopt, false);
  }
  absl::Status BindBlob(int index, const std::string& value) override {
    return Bind(index, kByteaOid, value, true);
  }

  absl::StatusOr<bool> Step() override;

  int64_t ColumnInt64(int column) override {
    const char* value = Value(column);
    if (value == nullptr) return 0;
    if (value[0] == 't' || value[0] == 'f') return value[0] == 't';  // boolean
    int64_t parsed = 0;
    if (!absl::SimpleAtoi(value, &parsed)) {
      double real = 0;  // numeric, e.g. SUM over BIGINT
      if (absl::SimpleAtod(value, &real)) parsed = static_cast<int64_t>(real);
    }
    return parsed;
  }
  double ColumnDouble(int column) override {
    const char* value = Value(column);
    double parsed = 0;
    if (value != nullptr) (void)absl::SimpleAtod(value, &parsed);
    return parsed;
  }
  std::string ColumnText(int column) override {
    const char* value = Value(column);
    if (value == nullptr) return "";
    return std::string(value, PQgetlength(result_.get(), row_, column));
  }
  std::string ColumnBlob(int column) override {
    const char* value = Value(column);
    if (value == nullptr) return "";
    const int length = PQgetlength(result_.get(), row_, column);
    if (PQftype(result_.get(), column) != kByteaOid) return std::string(value, length);
    return DecodeBytea(value, length);
  }

  void Reset() override {
    result_.reset();
    row_ = -1;
    params_.clear();
  }

  const std::string& operation() const override { return operation_; }

 private:
  struct Param {
    Oid type = kTextOid;
    std::optional<std::string> value;
    bool binary = false;
  };

  absl::Status Bind(int index, Oid type, std::optional<std::string> value, bool binary) {
    if (index < 1 || index > 1000) {
      return absl::InternalError(absl::StrCat(operation_, ": parameter ", index, " out of range"));
    }
    if (static_cast<size_t>(index) > params_.size()) params_.resize(index);
    params_[index - 1] = Param{type, std::move(value), binary};
    return absl::OkStatus();
  }

  const char* Value(int column) {
    if (result_ == nullptr || row_ < 0 || PQgetisnull(result_.get(), row_, column)) return nullptr;
    return PQgetvalue(result_.get(), row_, column);
  }

  PostgresDatabase* db_;
  std::string sql_;  // with $N placeholders
  std::string operation_;
  std::vector<Param> params_;
  Result result_;  // set by the first Step after a Reset
  int row_ = -1;
};

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(PGconn* conn, std::string path) : conn_(conn), path_(std::move(path)) {}
  ~PostgresDatabase() override { PQfinish(conn_); }

  Dialect dialect() const override { return Dialect::kPostgres; }
  const std::string& path() const override { return path_; }

  absl::Status Exec(const std::string& sql, absl::string_view operation) override {
    KBENCH_RETURN_IF_ERROR(EnsureConnected(operation));
    Result result(PQexec(conn_, sql.c_str()));
    if (!Succeeded(result.get())) return ResultError(conn_, result.get(), operation);
    NoteChanges(result.get());
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Statement>> Prepare(const std::string& sql,
                                                     absl::string_view operation) override {
    // Executed with PQexecParams each time rather than prepared on the server: a statement
    // then survives a reconnection, and parsing is cheap next to a commit.
    return std::make_unique<PostgresStatement>(this, PostgresPlaceholders(sql),
                                               std::string(operation));
  }

  int64_t Changes() override { return changes_; }

  absl::Status SetDurableCommits(bool durable) override {
    return Exec(durable ? "SET synchronous_commit = on" : "SET synchronous_commit = off",
                durable ? "restore synchronous_commit" : "relax synchronous_commit");
  }

  absl::Status BeginWrite(absl::string_view operation) override {
    KBENCH_RETURN_IF_ERROR(
        Exec(absl::StrCat("BEGIN; SELECT pg_advisory_xact_lock(", kWriteLockKey, ")"),
             absl::StrCat(operation, ": begin transaction")));
    in_transaction_ = true;
    return absl::OkStatus();
  }
  absl::Status BeginLocal(absl::string_view operation) override {
    KBENCH_RETURN_IF_ERROR(Exec("BEGIN", absl::StrCat(operation, ": begin transaction")));
    in_transaction_ = true;
    return absl::OkStatus();
  }
  absl::Status Commit(absl::string_view operation) override {
    absl::Status status = Exec("COMMIT", absl::StrCat(operation, ": commit"));
    if (status.ok()) in_transaction_ = false;
    return status;
  }
  void Rollback() override {
    in_transaction_ = false;
    if (PQstatus(conn_) == CONNECTION_OK) Result(PQexec(conn_, "ROLLBACK"));
  }

  // Runs one statement with typed parameters; text results.
  absl::StatusOr<Result> ExecParams(const std::string& sql, const std::vector<Oid>& types,
                                    const std::vector<const char*>& values,
                                    const std::vector<int>& lengths,
                                    const std::vector<int>& formats, absl::string_view operation) {
    KBENCH_RETURN_IF_ERROR(EnsureConnected(operation));
    Result result(PQexecParams(conn_, sql.c_str(), static_cast<int>(types.size()), types.data(),
                               values.data(), lengths.data(), formats.data(), 0));
    if (!Succeeded(result.get())) return ResultError(conn_, result.get(), operation);
    NoteChanges(result.get());
    return result;
  }

 private:
  // A connection lost between transactions is re-established once; inside a transaction the
  // loss is the transaction's failure (its work is gone with the session).
  absl::Status EnsureConnected(absl::string_view operation) {
    if (PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
    if (in_transaction_) return ConnectionError(conn_, operation);
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) return ConnectionError(conn_, operation);
    return absl::OkStatus();
  }

  void NoteChanges(const PGresult* result) {
    const char* tuples = PQcmdTuples(const_cast<PGresult*>(result));
    int64_t changes = 0;
    if (tuples != nullptr && tuples[0] != '\0' && absl::SimpleAtoi(tuples, &changes)) {
      changes_ = changes;
    }
  }

  PGconn* conn_;
  std::string path_;
  int64_t changes_ = 0;
  bool in_transaction_ = false;
};

absl::StatusOr<bool> PostgresStatement::Step() {
  if (result_ == nullptr) {
    std::vector<Oid> types;
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (const Param& p : params_) {
      types.push_back(p.type);
      values.push_back(p.value.has_value() ? p.value->data() : nullptr);
      lengths.push_back(p.value.has_value() ? static_cast<int>(p.value->size()) : 0);
      formats.push_back(p.binary ? 1 : 0);
    }
    KBENCH_ASSIGN_OR_RETURN(result_,
                            db_->ExecParams(sql_, types, values, lengths, formats, operation_));
    row_ = -1;
  }
  if (row_ + 1 >= PQntuples(result_.get())) {
    row_ = PQntuples(result_.get());
    return false;
  }
  ++row_;
  return true;
}

}  // namespace

std::string PostgresPlaceholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;   // inside '...' or "..."
  int highest = 0;  // SQLite's rule: a bare ? is the largest index so far plus one
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      out.push_back(c);
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c != '?') {
      out.push_back(c);
      continue;
    }
    size_t end = i + 1;
    while (end < sql.size() && absl::ascii_isdigit(sql[end])) ++end;
    int index = highest + 1;
    if (end > i + 1) (void)absl::SimpleAtoi(sql.substr(i + 1, end - i - 1), &index);
    highest = std::max(highest, index);
    absl::StrAppend(&out, "$", index);
    i = end - 1;
  }
  return out;
}

std::string RedactedUrl(const std::string& url) {
  // postgres://user:password@host/... -> postgres://user@host/...
  const size_t scheme = url.find("://");
  const size_t at = url.find('@', scheme == std::string::npos ? 0 : scheme + 3);
  std::string redacted = url;
  if (scheme != std::string::npos && at != std::string::npos) {
    const size_t colon = url.find(':', scheme + 3);
    if (colon != std::string::npos && colon < at) redacted.erase(colon, at - colon);
  }
  // key=value form or a URI parameter: password=... up to the next space or '&'.
  for (size_t p = redacted.find("password="); p != std::string::npos;
       p = redacted.find("password=", p + 1)) {
    size_t end = redacted.find_first_of(" &", p);
    redacted.replace(p, (end == std::string::npos ? redacted.size() : end) - p, "password=***");
  }
  return redacted;
}

absl::StatusOr<std::unique_ptr<Database>> OpenPostgres(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr)
    return absl::ResourceExhaustedError("postgres: cannot allocate a connection");
  const std::string name = RedactedUrl(url);
  if (PQstatus(conn) != CONNECTION_OK) {
    absl::Status status = absl::UnavailableError(
        absl::StrCat("postgres connect to ", name, ": ", ConnectionMessage(conn)));
    PQfinish(conn);
    return WithSqlFailure(std::move(status), SqlFailure::kStorage);
  }
  auto db = std::make_unique<PostgresDatabase>(conn, name);
  // Notices (e.g. "relation already exists, skipping") are not errors; keep them off stderr.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  KBENCH_RETURN_IF_ERROR(db->Exec("SET client_min_messages = warning", "set client_min_messages"));
  return std::unique_ptr<Database>(std::move(db));
}

}  // namespace kbench::store::internal
