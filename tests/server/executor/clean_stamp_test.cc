// The clean-measurement stamp (issue 29, item 2): a window of scripted readings (a fake NVML)
// judged clean or with each reason, and the host's CPU list.
#include "server/executor/conditions/clean_stamp.h"

#include <algorithm>
#include <vector>

#include "gtest/gtest.h"

namespace kbench::executor {
namespace {

constexpr int64_t kOwnPid = 77;

ConditionsReading Quiet() {
  ConditionsReading r;
  r.context_pids = std::vector<int64_t>{kOwnPid};
  r.compute_mode = "exclusive_process";
  r.sm_clock_mhz = 1980;
  r.memory_clock_mhz = 2619;
  r.temperature_c = 45;
  r.thermal_margin_c = 40;
  return r;
}

bool HasReason(const v1::CleanStamp& s, v1::StampReason reason) {
  return std::find(s.reasons().begin(), s.reasons().end(), reason) != s.reasons().end();
}

v1::CleanStamp StampOf(const std::vector<ConditionsReading>& readings, HostConditions host = {}) {
  CleanStampWindow window(kOwnPid);
  for (const ConditionsReading& r : readings) window.Observe(r);
  return window.Stamp(host);
}

TEST(CleanStampWindow, AQuietWindowIsClean) {
  const v1::CleanStamp s = StampOf({Quiet(), Quiet(), Quiet()});
  EXPECT_TRUE(s.stamped());
  EXPECT_TRUE(s.clean());
  EXPECT_TRUE(s.reasons().empty());
  EXPECT_EQ(s.readings(), 3);
  EXPECT_EQ(s.sm_clock_min_mhz(), 1980);
  EXPECT_EQ(s.thermal_margin_min_c(), 40);
  EXPECT_EQ(s.compute_mode(), "exclusive_process");
}

TEST(CleanStampWindow, NoReadingsIsNotStampedAndNotClean) {
  const v1::CleanStamp s = StampOf({});
  EXPECT_FALSE(s.stamped());
  EXPECT_FALSE(s.clean());
}

TEST(CleanStampWindow, AnotherProcessOnTheDeviceIsAReason) {
  ConditionsReading busy = Quiet();
  busy.context_pids = std::vector<int64_t>{kOwnPid, 4242};
  const v1::CleanStamp s = StampOf({Quiet(), busy, Quiet()});
  EXPECT_FALSE(s.clean());
  EXPECT_TRUE(HasReason(s, v1::STAMP_REASON_OTHER_PROCESS));
  ASSERT_EQ(s.other_pids_size(), 1);
  EXPECT_EQ(s.other_pids(0), 4242);
  EXPECT_NE(s.details(0).find("4242"), std::string::npos);
}

TEST(CleanStampWindow, MigOrMpsIsAReason) {
  ConditionsReading mps = Quiet();
  mps.mps_active = true;
  const v1::CleanStamp s = StampOf({mps});
  EXPECT_TRUE(HasReason(s, v1::STAMP_REASON_MIG_OR_MPS));
  EXPECT_NE(s.details(0).find("MPS"), std::string::npos);
}

TEST(CleanStampWindow, AClockThatMovedMoreThanFivePercentIsAReason) {
  ConditionsReading slow = Quiet();
  slow.sm_clock_mhz = 1700;
  const v1::CleanStamp s = StampOf({Quiet(), slow});
  EXPECT_TRUE(HasReason(s, v1::STAMP_REASON_CLOCKS_MOVED));
  EXPECT_EQ(s.sm_clock_min_mhz(), 1700);
  EXPECT_EQ(s.sm_clock_max_mhz(), 1980);
}

TEST(CleanStampWindow, ABoostStepIsNotAReason) {
  ConditionsReading step = Quiet();
  step.sm_clock_mhz = 1965;
  EXPECT_TRUE(StampOf({Quiet(), step}).clean());
}

TEST(CleanStampWindow, ThrottleBitsOrAdvancingViolationsAreAReason) {
  ConditionsReading capped = Quiet();
  capped.throttle_reasons = 0x4;
  EXPECT_TRUE(HasReason(StampOf({capped}), v1::STAMP_REASON_THROTTLED));
  ConditionsReading before = Quiet(), after = Quiet();
  before.violation_ns = 1'000'000;
  after.violation_ns = 51'000'000;
  const v1::CleanStamp s = StampOf({before, after});
  EXPECT_TRUE(HasReason(s, v1::STAMP_REASON_THROTTLED));
  EXPECT_DOUBLE_EQ(s.violation_seconds(), 0.05);
}

TEST(CleanStampWindow, UnchangedCumulativeCountersAreClean) {
  ConditionsReading r = Quiet();
  r.violation_ns = 9'000'000'000;
  r.ecc_errors = 3;
  r.xid_events = 1;
  EXPECT_TRUE(StampOf({r, r}).clean());
}

TEST(CleanStampWindow, TenDegreesOfHeadroomOrLessIsAReason) {
  ConditionsReading hot = Quiet();
  hot.thermal_margin_c = 10;
  const v1::CleanStamp s = StampOf({Quiet(), hot});
  EXPECT_TRUE(HasReason(s, v1::STAMP_REASON_HOT));
  EXPECT_EQ(s.thermal_margin_min_c(), 10);
  hot.thermal_margin_c = 11;
  EXPECT_TRUE(StampOf({hot}).clean());
}

TEST(CleanStampWindow, AnUnsupportedMarginIsAbsentNotZero) {
  ConditionsReading r = Quiet();
  r.thermal_margin_c.reset();
  const v1::CleanStamp s = StampOf({r});
  EXPECT_FALSE(s.has_thermal_margin_min_c());
  EXPECT_TRUE(s.clean());
}

TEST(CleanStampWindow, NewEccErrorsOrXidEventsAreAReason) {
  ConditionsReading before = Quiet(), after = Quiet();
  after.xid_events = 1;
  const v1::CleanStamp s = StampOf({before, after});
  EXPECT_TRUE(HasReason(s, v1::STAMP_REASON_ECC_OR_XID));
  EXPECT_EQ(s.xid_events(), 1);
}

TEST(CleanStampWindow, AnXidNamesItsNumberAndAnUnwatchedWindowSaysSo) {
  ConditionsReading before = Quiet(), after = Quiet();
  before.xid_watched = after.xid_watched = true;
  before.xid_events = 2;  // seen before the window: not this window's
  before.last_xid = 13;
  after.xid_events = 3;
  after.last_xid = 31;
  const v1::CleanStamp s = StampOf({before, after});
  EXPECT_TRUE(s.xid_watched());
  EXPECT_EQ(s.xid_events(), 1);
  EXPECT_EQ(s.last_xid(), 31);
  EXPECT_FALSE(s.clean());
  EXPECT_NE(s.details(0).find("the last Xid 31"), std::string::npos) << s.details(0);

  ConditionsReading unwatched = Quiet();  // a driver without event sets
  const v1::CleanStamp quiet = StampOf({Quiet(), unwatched});
  EXPECT_FALSE(quiet.xid_watched());
  EXPECT_TRUE(quiet.clean());
}

TEST(CleanStampWindow, ASharedCpuIsAReasonAndTheHostAloneStamps) {
  HostConditions host;
  host.cpu_affinity = "3";
  host.cpu_shared = true;
  host.cpu_detail = "other processes used 0.80 of the executor's 1 CPUs (3)";
  const v1::CleanStamp s = StampOf({}, host);  // the cpu device: no device readings
  EXPECT_TRUE(s.stamped());
  EXPECT_FALSE(s.clean());
  EXPECT_TRUE(HasReason(s, v1::STAMP_REASON_CPU_SHARED));
  EXPECT_EQ(s.cpu_affinity(), "3");
}

TEST(CpuListString, CollapsesRuns) {
  EXPECT_EQ(CpuListString({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(CpuListString({5}), "5");
  EXPECT_EQ(CpuListString({}), "");
}

TEST(HostWatch, NamesThisProcessesCpus) {
  HostWatch watch;
  watch.Begin();
  const HostConditions host = watch.End();
  EXPECT_FALSE(host.cpu_affinity.empty());
}

}  // namespace
}  // namespace kbench::executor
