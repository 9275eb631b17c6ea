// Structured, leveled logging for kbenchd and its executors (spdlog underneath): text lines for
// people, JSON lines (`--log-format json`) for collectors; job lines always carry the job id.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kbench::logging {

enum class Level { kTrace, kDebug, kInfo, kWarn, kError };

// "trace" | "debug" | "info" | "warn" (or "warning") | "error"; anything else is
// INVALID_ARGUMENT naming --log-level and the value.
absl::StatusOr<Level> ParseLevel(absl::string_view name);

// One key=value pair of a log line. The value keeps its JSON type (string, integer, number,
// boolean) in JSON lines. Keys are sanitised to [A-Za-z0-9_.-]; a key that collides with a
// line's own keys (ts, level, msg, job_id) is written as "field.<key>".
class Field {
 public:
  Field(absl::string_view key, const char* value);
  Field(absl::string_view key, const std::string& value);
  Field(absl::string_view key, absl::string_view value);
  Field(absl::string_view key, bool value);
  Field(absl::string_view key, double value);
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Field(absl::string_view key, T value)
      : Field(key, std::is_signed_v<T> ? Integer{static_cast<int64_t>(value), 0, true}
                                       : Integer{0, static_cast<uint64_t>(value), false}) {}

  const std::string& key() const { return key_; }
  // The value as a JSON token (quoted and escaped for strings).
  const std::string& json_value() const { return json_; }
  // The value for a text line: bare when it has no space, quote, '=' or control character.
  const std::string& text_value() const { return text_; }

 private:
  struct Integer {
    int64_t s;
    uint64_t u;
    bool is_signed;
  };
  Field(absl::string_view key, Integer value);
  void SetString(absl::string_view value);

  std::string key_;
  std::string json_;
  std::string text_;
};

// Configures the process-wide logger: format "text" | "json", level as ParseLevel, lines to
// stderr. May be called again (e.g. in an executor child after fork); safe against concurrent
// logging. Before any call, logs go to stderr as text at level info.
absl::Status InitLogging(const std::string& format, const std::string& level);
// The same, writing to `out`, which must outlive every later log call (tests capture lines).
absl::Status InitLogging(const std::string& format, const std::string& level, std::ostream& out);

bool Enabled(Level level);

void Log(Level level, absl::string_view message, std::initializer_list<Field> fields = {});
// A line about one job: job_id is always present, right after the message.
void LogJob(Level level, absl::string_view job_id, absl::string_view message,
            std::initializer_list<Field> fields = {});

// Logs lines about one job with fixed context fields (device, kind, ...) on every line.
// Cheap to copy; thread-safe like the free functions.
class JobLogger {
 public:
  explicit JobLogger(std::string job_id, std::vector<Field> context = {});

  void Log(Level level, absl::string_view message, std::initializer_list<Field> fields = {}) const;
  void Debug(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Log(Level::kDebug, message, fields);
  }
  void Info(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Log(Level::kInfo, message, fields);
  }
  void Warn(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Log(Level::kWarn, message, fields);
  }
  void Error(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Log(Level::kError, message, fields);
  }
  const std::string& job_id() const { return job_id_; }

 private:
  std::string job_id_;
  std::vector<Field> context_;
};

}  // namespace kbench::logging
