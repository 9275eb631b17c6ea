// Unit tests of kbench's structured logging: JSON lines a collector can parse, text lines a
// person can read, the job id on every job line, levels and flag errors.
#include "server/common/logging.h"

#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace kbench::logging {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class LoggingTest : public ::testing::Test {
 protected:
  ~LoggingTest() override {
    // Later tests (and other code in this binary) must not write into a dead stream.
    (void)InitLogging("text", "info");
  }
  void Init(const std::string& format, const std::string& level) {
    ASSERT_TRUE(InitLogging(format, level, out_).ok());
  }
  std::ostringstream out_;
};

TEST_F(LoggingTest, WritesJobLinesAsJsonWithJobIdAndTypedFields) {
  Init("json", "info");
  LogJob(
      Level::kInfo, "job-42", "job finished",
      {{"device", "cuda:0"}, {"samples", 17}, {"median_seconds", 0.00125}, {"throttled", false}});
  const auto lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 1u) << out_.str();
  const nlohmann::json j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j.at("msg"), "job finished");
  EXPECT_EQ(j.at("job_id"), "job-42");
  EXPECT_EQ(j.at("level"), "info");
  EXPECT_EQ(j.at("device"), "cuda:0");
  EXPECT_EQ(j.at("samples"), 17);
  EXPECT_DOUBLE_EQ(j.at("median_seconds").get<double>(), 0.00125);
  EXPECT_EQ(j.at("throttled"), false);
  EXPECT_THAT(j.at("ts").get<std::string>(),
              MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z"));
}

TEST_F(LoggingTest, EscapesHostileStringsInJson) {
  Init("json", "info");
  // Quotes, braces (not a format string), a newline, a control byte and invalid UTF-8.
  LogJob(Level::kWarn, "id\"}", "kernel {} said \"no\"\nline two",
         {{"reason", std::string("bad\x01\xff bytes")}});
  const auto lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 1u) << "one call must be one line: " << out_.str();
  const nlohmann::json j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j.at("msg"), "kernel {} said \"no\"\nline two");
  EXPECT_EQ(j.at("job_id"), "id\"}");
  EXPECT_EQ(j.at("level"), "warning");
  EXPECT_THAT(j.at("reason").get<std::string>(), HasSubstr("bad\x01"));
}

TEST_F(LoggingTest, KeepsLineKeysFromBeingShadowedByFields) {
  Init("json", "info");
  LogJob(Level::kInfo, "job-1", "hello", {{"job_id", "other"}, {"msg", "x"}, {"bad key!", 1}});
  const nlohmann::json j = nlohmann::json::parse(Lines(out_.str()).at(0));
  EXPECT_EQ(j.at("job_id"), "job-1");
  EXPECT_EQ(j.at("msg"), "hello");
  EXPECT_EQ(j.at("field.job_id"), "other");
  EXPECT_EQ(j.at("field.msg"), "x");
  EXPECT_EQ(j.at("bad_key_"), 1);
}

TEST_F(LoggingTest, WritesNonFiniteNumbersAsJsonNull) {
  Init("json", "info");
  Log(Level::kInfo, "noise", {{"value", std::numeric_limits<double>::quiet_NaN()}});
  const nlohmann::json j = nlohmann::json::parse(Lines(out_.str()).at(0));
  EXPECT_TRUE(j.at("value").is_null());
}

TEST_F(LoggingTest, WritesTextLinesWithJobIdAndQuotedValues) {
  Init("text", "info");
  LogJob(Level::kError, "job-7", "job failed",
         {{"device", "cpu"}, {"reason", "out of memory"}, {"bytes", uint64_t{1} << 40}});
  const auto lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], MatchesRegex("[0-9-]+T[0-9:.]+Z error job failed job_id=job-7 "
                                     "device=cpu reason=\"out of memory\" bytes=1099511627776"));
}

TEST_F(LoggingTest, KeepsATextMessageOnOneLine) {
  Init("text", "info");
  Log(Level::kInfo, "first\nsecond");
  const auto lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("first\\nsecond"));
}

TEST_F(LoggingTest, JobLoggerPutsJobIdAndContextOnEveryLine) {
  Init("json", "debug");
  JobLogger job("job-9", {{"device", "cuda:1"}, {"kind", "benchmark"}});
  job.Info("started");
  job.Debug("sample", {{"n", 3}});
  job.Error("failed", {{"cause", "signal 11"}});
  const auto lines = Lines(out_.str());
  ASSERT_EQ(lines.size(), 3u);
  for (const std::string& line : lines) {
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j.at("job_id"), "job-9") << line;
    EXPECT_EQ(j.at("device"), "cuda:1") << line;
    EXPECT_EQ(j.at("kind"), "benchmark") << line;
  }
  EXPECT_EQ(nlohmann::json::parse(lines[1]).at("n"), 3);
  EXPECT_EQ(nlohmann::json::parse(lines[2]).at("level"), "error");
}

TEST_F(LoggingTest, DropsLinesBelowTheLevel) {
  Init("text", "warn");
  Log(Level::kDebug, "debug line");
  Log(Level::kInfo, "info line");
  Log(Level::kWarn, "warn line");
  Log(Level::kError, "error line");
  EXPECT_THAT(out_.str(), Not(HasSubstr("debug line")));
  EXPECT_THAT(out_.str(), Not(HasSubstr("info line")));
  EXPECT_THAT(out_.str(), HasSubstr("warn line"));
  EXPECT_THAT(out_.str(), HasSubstr("error line"));
  EXPECT_FALSE(Enabled(Level::kInfo));
  EXPECT_TRUE(Enabled(Level::kWarn));
}

TEST_F(LoggingTest, RejectsAnUnknownFormatNamingTheFlag) {
  absl::Status s = InitLogging("xml", "info", out_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--log-format"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("xml"));
}

TEST_F(LoggingTest, RejectsAnUnknownLevelNamingTheFlag) {
  absl::Status s = InitLogging("json", "loud", out_);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--log-level"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("loud"));
}

TEST(ParseLevel, AcceptsEveryDocumentedNameInAnyCase) {
  EXPECT_EQ(*ParseLevel("trace"), Level::kTrace);
  EXPECT_EQ(*ParseLevel("DEBUG"), Level::kDebug);
  EXPECT_EQ(*ParseLevel("Info"), Level::kInfo);
  EXPECT_EQ(*ParseLevel("warn"), Level::kWarn);
  EXPECT_EQ(*ParseLevel("warning"), Level::kWarn);
  EXPECT_EQ(*ParseLevel("error"), Level::kError);
}

}  // namespace
}  // namespace kbench::logging
