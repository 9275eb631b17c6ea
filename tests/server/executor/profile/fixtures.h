// Loads recorded activity fixtures (tests/server/executor/profile/fixtures/*.activity.json).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "server/executor/profile/activity_json.h"

namespace kbench::executor::profile::testing {

inline std::string FixturePath(const std::string& name) {
  return std::string(KBENCH_PROFILE_FIXTURES) + "/" + name;
}

inline std::string ReadFixtureText(const std::string& name) {
  std::ifstream f(FixturePath(name));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The softmax naive + fused recording (make_softmax_fixture.py says what is in it).
inline ActivityLog LoadSoftmaxFixture() {
  const std::string text = ReadFixtureText("softmax_naive_fused.activity.json");
  EXPECT_FALSE(text.empty()) << "missing fixture "
                             << FixturePath("softmax_naive_fused.activity.json");
  absl::StatusOr<ActivityLog> log = ActivityLogFromJson(nlohmann::json::parse(text));
  EXPECT_TRUE(log.ok()) << log.status();
  return log.ok() ? *log : ActivityLog();
}

// Nanoseconds from the fixture's base timestamp.
inline constexpr uint64_t kFixtureBase = 1'700'000'000'000'000'000ULL;

}  // namespace kbench::executor::profile::testing
