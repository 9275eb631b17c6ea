// The thermal gate (issue 29, item 2) on scripted headroom readings with a clock that moves only
// when the gate sleeps: the wait before sampling, pauses during it, the bound, the record.
#include "server/executor/conditions/thermal_gate.h"

#include <deque>
#include <optional>

#include "gtest/gtest.h"
#include "server/executor/conditions/sampling_conditions.h"

namespace kbench::executor {
namespace {

// Each Read pops the next scripted headroom; the last one repeats.
class ScriptedHeadroom : public ConditionsReader {
 public:
  explicit ScriptedHeadroom(std::deque<std::optional<int>> margins) : margins_(margins) {}
  ConditionsReading Read() override {
    ConditionsReading r;
    r.thermal_margin_c = margins_.front();
    if (margins_.size() > 1) margins_.pop_front();
    ++reads;
    return r;
  }
  int reads = 0;

 private:
  std::deque<std::optional<int>> margins_;
};

struct SteppedClock {
  double now = 0;
  GateClock Clock() {
    return {[this] { return now; }, [this](double s) { now += s; }};
  }
};

ConditionsReading WithMargin(std::optional<int> margin) {
  ConditionsReading r;
  r.thermal_margin_c = margin;
  return r;
}

TEST(ThermalGate, DoesNotWaitWithEnoughHeadroom) {
  ScriptedHeadroom device({35});
  SteppedClock clock;
  ThermalGate gate(device, clock.Clock());
  gate.WaitBeforeSampling();
  EXPECT_EQ(gate.record().waited_seconds, 0);
  EXPECT_EQ(clock.now, 0);
}

TEST(ThermalGate, WaitsUntilTwentyDegreesPollingFasterWhenClose) {
  // 12 C: far (1 s poll); 15 C: far; 18 C: close (0.25 s poll); 20 C: go.
  ScriptedHeadroom device({12, 15, 18, 20});
  SteppedClock clock;
  ThermalGate gate(device, clock.Clock());
  gate.WaitBeforeSampling();
  EXPECT_NEAR(gate.record().waited_seconds, 1.0 + 1.0 + 0.25, 1e-9);
  EXPECT_FALSE(gate.record().timed_out);
}

TEST(ThermalGate, GivesUpAtTheBoundAndTheStampSaysSo) {
  ScriptedHeadroom device({5});
  SteppedClock clock;
  ThermalGateOptions options;
  options.max_wait_seconds = 3;
  ThermalGate gate(device, clock.Clock(), options);
  gate.WaitBeforeSampling();
  EXPECT_TRUE(gate.record().timed_out);
  EXPECT_NEAR(gate.record().waited_seconds, 3.0, 1e-9);
  v1::CleanStamp stamp;
  stamp.set_clean(true);
  FillThermalGate(gate.record(), &stamp);
  EXPECT_FALSE(stamp.clean());
  EXPECT_EQ(stamp.reasons(0), v1::STAMP_REASON_HOT);
  EXPECT_DOUBLE_EQ(stamp.thermal_wait_seconds(), 3.0);
}

TEST(ThermalGate, PausesSamplingAtTenDegreesUntilTwenty) {
  ScriptedHeadroom device({14, 21});
  SteppedClock clock;
  ThermalGate gate(device, clock.Clock());
  gate.MaybePause(WithMargin(11));  // above the pause line: no pause
  EXPECT_EQ(gate.record().pauses, 0);
  gate.MaybePause(WithMargin(10));
  EXPECT_EQ(gate.record().pauses, 1);
  EXPECT_NEAR(gate.record().waited_seconds, 2.0, 1e-9);  // 10 -> 14 -> 21, two far polls
  v1::CleanStamp stamp;
  FillThermalGate(gate.record(), &stamp);
  EXPECT_EQ(stamp.thermal_pauses(), 1);
  EXPECT_TRUE(stamp.thermal_gate());
}

TEST(ThermalGate, AnUnsupportedMarginGatesNothing) {
  ScriptedHeadroom device({std::nullopt});
  SteppedClock clock;
  ThermalGate gate(device, clock.Clock());
  gate.WaitBeforeSampling();
  gate.MaybePause(WithMargin(std::nullopt));
  EXPECT_TRUE(gate.record().unsupported);
  EXPECT_EQ(clock.now, 0);
  EXPECT_EQ(gate.record().pauses, 0);
}

TEST(SamplingConditions, GatesAndStampsOneWindow) {
  // Before: 15 then 22 (one far poll); between samples: 30, then 9 (a pause: 9 -> 25).
  ScriptedHeadroom device({15, 22, 30, 9, 25, 25});
  SteppedClock clock;
  SamplingConditions conditions(&device, /*thermal_gate=*/true, clock.Clock(), 1);
  conditions.BeforeSampling();
  conditions.BetweenSamples();
  conditions.BetweenSamples();
  const v1::CleanStamp stamp = conditions.AfterSampling();
  EXPECT_TRUE(stamp.thermal_gate());
  EXPECT_EQ(stamp.thermal_pauses(), 1);
  EXPECT_NEAR(stamp.thermal_wait_seconds(), 2.0, 1e-9);
  // The 9 C reading is in the window: the stamp says the GPU ran hot.
  EXPECT_EQ(stamp.thermal_margin_min_c(), 9);
  EXPECT_FALSE(stamp.clean());
}

TEST(SamplingConditions, WithoutADeviceReaderStampsTheHostOnly) {
  SteppedClock clock;
  SamplingConditions conditions(nullptr, /*thermal_gate=*/true, clock.Clock(), 1);
  conditions.BeforeSampling();
  conditions.BetweenSamples();
  const v1::CleanStamp stamp = conditions.AfterSampling();
  EXPECT_EQ(stamp.readings(), 0);
  EXPECT_FALSE(stamp.thermal_gate());
  EXPECT_FALSE(stamp.cpu_affinity().empty());
  EXPECT_EQ(clock.now, 0);
}

TEST(ThermalGateOn, DefaultsToRankedRunsAndHonoursTheSpec) {
  EXPECT_TRUE(ThermalGateOn(false, false, /*ranked=*/true));
  EXPECT_FALSE(ThermalGateOn(false, false, /*ranked=*/false));
  EXPECT_FALSE(ThermalGateOn(true, false, /*ranked=*/true));
  EXPECT_TRUE(ThermalGateOn(true, true, /*ranked=*/false));
}

}  // namespace
}  // namespace kbench::executor
