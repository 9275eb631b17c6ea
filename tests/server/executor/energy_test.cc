// Energy per launch (issue 29, item 1): how many launches resolve NVML's energy counter, and
// the joules, watts, FLOP/J and bytes/J of a batch, from a fake counter's readings.
#include "server/executor/conditions/energy.h"

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace kbench::executor {
namespace {

TEST(PlanEnergyLaunches, SpansTenCounterUpdatesForAShortKernel) {
  // 10 us per launch, 100 ms updates: ten updates are 1 s, i.e. 100000 launches.
  EXPECT_EQ(PlanEnergyLaunches(10e-6, {}), 100000);
}

TEST(PlanEnergyLaunches, SpansHalfASecondWhenTheCounterIsFast) {
  EnergyPlanOptions options;
  options.counter_period_seconds = 0.02;  // ten updates = 0.2 s < the 0.5 s minimum
  EXPECT_EQ(PlanEnergyLaunches(1e-3, options), 500);
}

TEST(PlanEnergyLaunches, StaysWithinTheBudgetForASlowKernel) {
  EnergyPlanOptions options;
  options.max_seconds = 2.0;
  options.min_counter_updates = 30;  // 3 s wanted
  // 0.5 s per launch: the span is capped at 2 s, four launches.
  EXPECT_EQ(PlanEnergyLaunches(0.5, options), 4);
  // A launch longer than the whole budget still runs once.
  EXPECT_EQ(PlanEnergyLaunches(30.0, options), 1);
}

TEST(PlanEnergyLaunches, CapsTheLaunchCount) {
  EnergyPlanOptions options;
  options.max_launches = 1000;
  EXPECT_EQ(PlanEnergyLaunches(1e-9, options), 1000);
}

TEST(PlanEnergyLaunches, PlansNothingWithoutAPerLaunchTime) {
  EXPECT_EQ(PlanEnergyLaunches(0, {}), 0);
  EXPECT_EQ(PlanEnergyLaunches(-1, {}), 0);
}

TEST(EnergyFromCounter, GivesJoulesPerLaunchWattsAndEfficiency) {
  // 300 J over 1.5 s and 100000 launches of 2 GFLOP and 1 GB each.
  const v1::Energy e = EnergyFromCounter(1'000'000, 1'300'000, 100000, 1.5,
                                         {.flops = 2'000'000'000, .bytes = 1'000'000'000});
  ASSERT_TRUE(e.measured());
  EXPECT_DOUBLE_EQ(e.joules(), 300.0);
  EXPECT_DOUBLE_EQ(e.joules_per_launch(), 3e-3);
  EXPECT_DOUBLE_EQ(e.average_watts(), 200.0);
  EXPECT_DOUBLE_EQ(e.flops_per_joule(), 2e9 / 3e-3);
  EXPECT_DOUBLE_EQ(e.bytes_per_joule(), 1e9 / 3e-3);
  EXPECT_EQ(e.launches(), 100000);
  EXPECT_TRUE(e.unsupported().empty());
}

TEST(EnergyFromCounter, ACounterThatDidNotMoveIsNotAZero) {
  const v1::Energy e = EnergyFromCounter(5000, 5000, 10, 0.01, {});
  EXPECT_FALSE(e.measured());
  EXPECT_EQ(e.joules_per_launch(), 0);
  EXPECT_NE(e.unsupported().find("did not advance"), std::string::npos) << e.unsupported();
}

TEST(EnergyFromCounter, ACounterThatWentBackwardsIsNotAMeasurement) {
  const v1::Energy e = EnergyFromCounter(9000, 100, 10, 1.0, {});
  EXPECT_FALSE(e.measured());
  EXPECT_FALSE(e.unsupported().empty());
}

TEST(EnergyFromCounter, NoLaunchesIsNotAMeasurement) {
  EXPECT_FALSE(EnergyFromCounter(0, 1000, 0, 1.0, {}).measured());
  EXPECT_FALSE(EnergyFromCounter(0, 1000, 10, 0.0, {}).measured());
}

// A counter that advances by a fixed power over the time the batch takes (a fake NVML), or
// that the device does not have.
class FakeEnergyCounter : public EnergyCounter {
 public:
  FakeEnergyCounter(const double* now, double watts, bool supported = true)
      : now_(now), watts_(watts), supported_(supported) {}
  std::optional<uint64_t> TotalMillijoules() override {
    if (!supported_) return std::nullopt;
    ++reads;
    return static_cast<uint64_t>(1'000'000 + *now_ * watts_ * 1000.0);
  }
  int reads = 0;

 private:
  const double* now_;
  double watts_;
  bool supported_;
};

TEST(MeasureEnergy, RunsThePlannedBatchBetweenTwoReadings) {
  double now = 0;
  FakeEnergyCounter counter(&now, 250.0);
  int64_t launched = 0;
  // Every launch takes 10 us of the fake clock.
  auto batch = [&](int64_t n) {
    launched += n;
    now += static_cast<double>(n) * 10e-6;
    return absl::OkStatus();
  };
  const absl::StatusOr<v1::Energy> e =
      MeasureEnergy(counter, batch, 10e-6, {.flops = 1000, .bytes = 4000}, {}, [&] { return now; });
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(launched, 100000);
  EXPECT_EQ(counter.reads, 2);
  ASSERT_TRUE(e->measured());
  EXPECT_NEAR(e->average_watts(), 250.0, 1e-6);
  EXPECT_NEAR(e->joules_per_launch(), 250.0 * 10e-6, 1e-9);
  EXPECT_NEAR(e->flops_per_joule(), 1000 / (250.0 * 10e-6), 1e-3);
}

TEST(MeasureEnergy, AnUnsupportedCounterLaunchesNothingAndSaysSo) {
  double now = 0;
  FakeEnergyCounter counter(&now, 250.0, /*supported=*/false);
  int64_t launched = 0;
  auto batch = [&](int64_t n) {
    launched += n;
    return absl::OkStatus();
  };
  const absl::StatusOr<v1::Energy> e =
      MeasureEnergy(counter, batch, 1e-3, {}, {}, [&] { return now; });
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->measured());
  EXPECT_NE(e->unsupported().find("nvmlDeviceGetTotalEnergyConsumption"), std::string::npos);
  EXPECT_EQ(launched, 0);
}

TEST(MeasureEnergy, AFailedLaunchIsTheError) {
  double now = 0;
  FakeEnergyCounter counter(&now, 100.0);
  auto batch = [](int64_t) { return absl::InternalError("cudaLaunchKernel: illegal address"); };
  const absl::StatusOr<v1::Energy> e =
      MeasureEnergy(counter, batch, 1e-3, {}, {}, [&] { return now; });
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInternal);
}

TEST(EnergyUnsupported, SaysWhy) {
  const v1::Energy e = EnergyUnsupported("unsupported on cpu");
  EXPECT_FALSE(e.measured());
  EXPECT_EQ(e.unsupported(), "unsupported on cpu");
}

}  // namespace
}  // namespace kbench::executor
