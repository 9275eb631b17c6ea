// Host spans of the job's phases and the activity fixture format.
#include "server/executor/profile/phase_recorder.h"

#include <unistd.h>

#include "gtest/gtest.h"
#include "server/executor/profile/activity_json.h"
#include "tests/server/executor/profile/fixtures.h"

namespace kbench::executor::profile {
namespace {

TEST(PhaseRecorder, RecordsNestedSpansOnTheGivenClock) {
  uint64_t now = 100;
  PhaseRecorder recorder([&] { return now += 10; });
  {
    PhaseRecorder::Scope profile = recorder.Enter("profile", "fused");  // t = 110
    {
      PhaseRecorder::Scope it = recorder.Enter("iteration", "fused", 0);  // 120
    }                                                                     // 130
    PhaseRecorder::Scope it = recorder.Enter("iteration", "fused", 1);    // 140
    it.End();                                                             // 150
  }                                                                       // 160
  const std::vector<HostSpan>& spans = recorder.spans();
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].phase, "profile");
  EXPECT_EQ(spans[0].variant, "fused");
  EXPECT_EQ(spans[0].iteration, -1);
  EXPECT_EQ(spans[0].start_ns, 110u);
  EXPECT_EQ(spans[0].end_ns, 160u);
  EXPECT_EQ(spans[1].iteration, 0);
  EXPECT_EQ(spans[1].start_ns, 120u);
  EXPECT_EQ(spans[1].end_ns, 130u);
  EXPECT_EQ(spans[2].iteration, 1);
  EXPECT_EQ(spans[2].end_ns, 150u);
  EXPECT_EQ(spans[0].process_id, static_cast<uint32_t>(getpid()));
  EXPECT_EQ(spans[0].thread_id, static_cast<uint32_t>(gettid()));
}

TEST(PhaseRecorder, ClosesAMovedScopeOnce) {
  uint64_t now = 0;
  PhaseRecorder recorder([&] { return ++now; });
  {
    PhaseRecorder::Scope a = recorder.Enter("warmup", "v");
    PhaseRecorder::Scope b = std::move(a);
  }
  ASSERT_EQ(recorder.spans().size(), 1u);
  EXPECT_EQ(recorder.spans()[0].start_ns, 1u);
  EXPECT_EQ(recorder.spans()[0].end_ns, 2u);
}

TEST(ActivityJson, RoundTripsTheFixture) {
  const ActivityLog log = testing::LoadSoftmaxFixture();
  ASSERT_EQ(log.kernels.size(), 25u);
  absl::StatusOr<ActivityLog> again = ActivityLogFromJson(ActivityLogToJson(log));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ActivityLogToJson(*again), ActivityLogToJson(log));
}

TEST(ActivityJson, NamesTheSectionThatIsMalformed) {
  nlohmann::json j = ActivityLogToJson(testing::LoadSoftmaxFixture());
  j["kernels"][0].erase("grid");
  absl::StatusOr<ActivityLog> r = ActivityLogFromJson(j);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("kernels"), std::string::npos);
}

}  // namespace
}  // namespace kbench::executor::profile
