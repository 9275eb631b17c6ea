// Structured logging on spdlog: builds each line's payload (message, job id, fields) as text or
// JSON and hands it to one process-wide spdlog logger whose pattern adds the time and level.
#include "server/common/logging.h"

#include <cmath>
#include <memory>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"
#include "spdlog/logger.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace kbench::logging {
namespace {

// JSON string token; invalid UTF-8 is replaced rather than thrown on, since a log call must
// never fail.
std::string JsonString(absl::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool NeedsQuotes(absl::string_view s) {
  if (s.empty()) return true;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || c == '"' || c == '=') return true;
  }
  return false;
}

std::string SanitizeKey(absl::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    out.push_back(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
                          c == '-'
                      ? c
                      : '_');
  }
  if (out.empty()) out = "_";
  // These keys belong to the line itself; a field may not shadow them in a JSON object.
  if (out == "ts" || out == "level" || out == "msg" || out == "job_id") out = "field." + out;
  return out;
}

// A message on one text line: line breaks escaped so that one call is one line.
std::string OneLine(absl::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (char c : message) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

spdlog::level::level_enum ToSpdlog(Level level) {
  switch (level) {
    case Level::kTrace:
      return spdlog::level::trace;
    case Level::kDebug:
      return spdlog::level::debug;
    case Level::kInfo:
      return spdlog::level::info;
    case Level::kWarn:
      return spdlog::level::warn;
    case Level::kError:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

struct Sink {
  std::shared_ptr<spdlog::logger> logger;
  bool json = false;
};

absl::Mutex g_mu;
std::shared_ptr<const Sink> g_sink ABSL_GUARDED_BY(g_mu);

std::shared_ptr<const Sink> MakeSink(spdlog::sink_ptr sink, bool json, Level level) {
  auto out = std::make_shared<Sink>();
  out->json = json;
  // UTC with an explicit Z: collectors and people in other time zones read the same instant.
  const char* pattern =
      json ? R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l",%v})" : "%Y-%m-%dT%H:%M:%S.%eZ %l %v";
  sink->set_formatter(
      std::make_unique<spdlog::pattern_formatter>(pattern, spdlog::pattern_time_type::utc));
  out->logger = std::make_shared<spdlog::logger>("kbench", std::move(sink));
  out->logger->set_level(ToSpdlog(level));
  out->logger->flush_on(spdlog::level::trace);
  return out;
}

std::shared_ptr<const Sink> CurrentSink() {
  absl::MutexLock lock(&g_mu);
  if (g_sink == nullptr) {
    g_sink = MakeSink(std::make_shared<spdlog::sinks::stderr_sink_mt>(), false, Level::kInfo);
  }
  return g_sink;
}

absl::Status Install(const std::string& format, const std::string& level, spdlog::sink_ptr sink) {
  if (format != "text" && format != "json") {
    return absl::InvalidArgumentError(absl::StrCat("--log-format: unknown format \"", format,
                                                   "\"; expected \"text\" or \"json\""));
  }
  KBENCH_ASSIGN_OR_RETURN(Level parsed, ParseLevel(level));
  auto made = MakeSink(std::move(sink), format == "json", parsed);
  absl::MutexLock lock(&g_mu);
  g_sink = std::move(made);
  return absl::OkStatus();
}

void Emit(Level level, absl::string_view message, const std::string* job_id,
          const std::vector<Field>* context, std::initializer_list<Field> fields) {
  std::shared_ptr<const Sink> sink = CurrentSink();
  if (!sink->logger->should_log(ToSpdlog(level))) return;
  std::string payload;
  auto add = [&](const Field& f) {
    if (sink->json) {
      absl::StrAppend(&payload, ",", JsonString(f.key()), ":", f.json_value());
    } else {
      absl::StrAppend(&payload, " ", f.key(), "=", f.text_value());
    }
  };
  if (sink->json) {
    absl::StrAppend(&payload, "\"msg\":", JsonString(message));
    if (job_id != nullptr) absl::StrAppend(&payload, ",\"job_id\":", JsonString(*job_id));
  } else {
    payload = OneLine(message);
    if (job_id != nullptr) {
      absl::StrAppend(&payload, " job_id=", NeedsQuotes(*job_id) ? JsonString(*job_id) : *job_id);
    }
  }
  if (context != nullptr) {
    for (const Field& f : *context) add(f);
  }
  for (const Field& f : fields) add(f);
  // The raw overload: the payload is never treated as a format string.
  sink->logger->log(ToSpdlog(level), spdlog::string_view_t(payload.data(), payload.size()));
}

}  // namespace

absl::StatusOr<Level> ParseLevel(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "trace") return Level::kTrace;
  if (lower == "debug") return Level::kDebug;
  if (lower == "info") return Level::kInfo;
  if (lower == "warn" || lower == "warning") return Level::kWarn;
  if (lower == "error") return Level::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("--log-level: unknown level \"", std::string(name),
                   "\"; expected one of trace, debug, info, warn, error"));
}

Field::Field(absl::string_view key, const char* value) : key_(SanitizeKey(key)) {
  SetString(value == nullptr ? absl::string_view() : absl::string_view(value));
}
Field::Field(absl::string_view key, const std::string& value) : key_(SanitizeKey(key)) {
  SetString(value);
}
Field::Field(absl::string_view key, absl::string_view value) : key_(SanitizeKey(key)) {
  SetString(value);
}
Field::Field(absl::string_view key, bool value)
    : key_(SanitizeKey(key)), json_(value ? "true" : "false"), text_(json_) {}
Field::Field(absl::string_view key, double value) : key_(SanitizeKey(key)) {
  if (std::isfinite(value)) {
    json_ = nlohmann::json(value).dump();  // shortest text that reads back as the same double
    text_ = json_;
  } else {
    json_ = "null";  // JSON has no NaN or infinity
    text_ = std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  }
}
Field::Field(absl::string_view key, Integer value) : key_(SanitizeKey(key)) {
  json_ = value.is_signed ? absl::StrCat(value.s) : absl::StrCat(value.u);
  text_ = json_;
}

void Field::SetString(absl::string_view value) {
  json_ = JsonString(value);
  text_ = NeedsQuotes(value) ? json_ : std::string(value);
}

absl::Status InitLogging(const std::string& format, const std::string& level) {
  return Install(format, level, std::make_shared<spdlog::sinks::stderr_sink_mt>());
}

absl::Status InitLogging(const std::string& format, const std::string& level, std::ostream& out) {
  return Install(format, level,
                 std::make_shared<spdlog::sinks::ostream_sink_mt>(out, /*force_flush=*/true));
}

bool Enabled(Level level) { return CurrentSink()->logger->should_log(ToSpdlog(level)); }

void Log(Level level, absl::string_view message, std::initializer_list<Field> fields) {
  Emit(level, message, nullptr, nullptr, fields);
}

void LogJob(Level level, absl::string_view job_id, absl::string_view message,
            std::initializer_list<Field> fields) {
  const std::string id(job_id);
  Emit(level, message, &id, nullptr, fields);
}

JobLogger::JobLogger(std::string job_id, std::vector<Field> context)
    : job_id_(std::move(job_id)), context_(std::move(context)) {}

void JobLogger::Log(Level level, absl::string_view message,
                    std::initializer_list<Field> fields) const {
  Emit(level, message, &job_id_, &context_, fields);
}

}  // namespace kbench::logging
