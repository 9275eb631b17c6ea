// The idle gate and the contention watch on a scripted GPU, with a clock that moves only when
// the gate sleeps; and the parsing of kbenchd's --idle-gate values.
#include "server/executor/contention.h"

#include <deque>
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "server/common/idle_gate_flag.h"

namespace kbench::executor {
namespace {

constexpr int64_t kSelf = 100;

// Each reading pops the next scripted state; the last one repeats.
class ScriptedGpu : public GpuActivity {
 public:
  struct State {
    std::optional<std::vector<SeenProcess>> processes = std::vector<SeenProcess>{{kSelf, 1}};
    int temperature_c = 50;
    int sm_clock_mhz = 1980;
  };
  explicit ScriptedGpu(std::deque<State> states) : states_(std::move(states)) {}

  std::optional<std::vector<SeenProcess>> ComputeProcesses() override {
    const State s = states_.front();
    if (states_.size() > 1) states_.pop_front();  // one state per poll
    current_ = s;
    return s.processes;
  }
  int TemperatureC() override { return current_.temperature_c; }
  int SmClockMhz() override { return current_.sm_clock_mhz; }
  int DefaultSmClockMhz() override { return 1755; }

 private:
  std::deque<State> states_;
  State current_;
};

struct FakeClock {
  double now = 0;
  GateClock Clock() {
    return {[this] { return now; }, [this](double s) { now += s; }};
  }
};

ScriptedGpu::State Busy() {
  ScriptedGpu::State s;
  s.processes = std::vector<SeenProcess>{{kSelf, 1}, {4242, 1 << 20}};
  return s;
}

TEST(RunIdleGate, OffByDefaultAndDoesNotWait) {
  ScriptedGpu gpu({Busy()});
  FakeClock clock;
  v1::IdleGate gate = RunIdleGate(gpu, {}, kSelf, clock.Clock());
  EXPECT_FALSE(gate.enabled());
  EXPECT_EQ(clock.now, 0);
}

TEST(RunIdleGate, WaitsUntilTheOtherProcessLeaves) {
  ScriptedGpu gpu({Busy(), Busy(), Busy(), ScriptedGpu::State{}});
  FakeClock clock;
  IdleGateOptions options;
  options.timeout_seconds = 10;
  v1::IdleGate gate = RunIdleGate(gpu, options, kSelf, clock.Clock());
  EXPECT_TRUE(gate.passed());
  EXPECT_NEAR(gate.waited_seconds(), 0.3, 1e-9);
  EXPECT_TRUE(gate.unmet().empty());
}

TEST(RunIdleGate, GivesUpAtTheTimeoutNamingWhatWasUnmet) {
  ScriptedGpu::State hot = Busy();
  hot.temperature_c = 85;
  ScriptedGpu gpu({hot});
  FakeClock clock;
  IdleGateOptions options;
  options.timeout_seconds = 2;
  options.max_temperature_c = 70;
  v1::IdleGate gate = RunIdleGate(gpu, options, kSelf, clock.Clock());
  EXPECT_FALSE(gate.passed());
  EXPECT_GE(gate.waited_seconds(), 2);
  EXPECT_LT(gate.waited_seconds(), 2.2);
  EXPECT_NE(gate.unmet().find("4242"), std::string::npos) << gate.unmet();
  EXPECT_NE(gate.unmet().find("85 C"), std::string::npos) << gate.unmet();
}

TEST(RunIdleGate, WaitsForTheDefaultClock) {
  ScriptedGpu::State slow;
  slow.sm_clock_mhz = 1200;
  ScriptedGpu gpu({slow, slow, ScriptedGpu::State{}});
  FakeClock clock;
  IdleGateOptions options;
  options.timeout_seconds = 5;
  v1::IdleGate gate = RunIdleGate(gpu, options, kSelf, clock.Clock());
  EXPECT_TRUE(gate.passed());
  EXPECT_NEAR(gate.waited_seconds(), 0.2, 1e-9);
}

TEST(ContentionWatch, OwnProcessAloneIsNotContended) {
  ScriptedGpu gpu({ScriptedGpu::State{}});
  ContentionWatch watch(kSelf);
  watch.Observe(gpu);
  watch.Observe(gpu);
  v1::Contention c;
  watch.Fill(&c);
  EXPECT_TRUE(c.checked());
  EXPECT_FALSE(c.contended());
  EXPECT_EQ(c.other_processes_size(), 0);
}

TEST(ContentionWatch, AnotherProcessAtEitherEndIsContendedOnce) {
  ScriptedGpu gpu({Busy(), Busy()});
  ContentionWatch watch(kSelf);
  watch.Observe(gpu);
  watch.Observe(gpu);
  v1::Contention c;
  watch.Fill(&c);
  EXPECT_TRUE(c.contended());
  ASSERT_EQ(c.other_processes_size(), 1);
  EXPECT_EQ(c.other_processes(0).pid(), 4242);
  EXPECT_EQ(c.other_processes(0).used_memory_bytes(), 1 << 20);
}

TEST(ContentionWatch, WithoutNvmlIsNotChecked) {
  ScriptedGpu::State blind;
  blind.processes = std::nullopt;
  ScriptedGpu gpu({blind});
  ContentionWatch watch(kSelf);
  watch.Observe(gpu);
  v1::Contention c;
  watch.Fill(&c);
  EXPECT_FALSE(c.checked());
  EXPECT_FALSE(c.contended());
}

TEST(IdleGateFlag, ParsesDeviceTimeoutAndTemperature) {
  absl::StatusOr<IdleGateSpec> spec = ParseIdleGateSpec("cuda:0=30,70");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->device, "cuda:0");
  EXPECT_EQ(spec->timeout_seconds, 30);
  EXPECT_EQ(spec->max_temperature_c, 70);
  EXPECT_TRUE(ParseIdleGateSpec("cuda:*=1.5").ok());
}

TEST(IdleGateFlag, RejectsBadValuesNamingThem) {
  for (const char* bad : {"cpu=30", "cuda:0", "cuda:0=0", "cuda:0=30,500", "cuda:0=x", "cuda:=3",
                          "cuda:0=30,70,1", "cuda:0=9999"}) {
    absl::StatusOr<IdleGateSpec> spec = ParseIdleGateSpec(bad);
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(spec.status().message().find(bad), std::string::npos) << spec.status();
  }
}

TEST(IdleGateFlag, OwnDeviceBeforeTheWildcard) {
  const std::vector<std::string> specs = {"cuda:*=60", "cuda:1=10,65"};
  EXPECT_EQ(IdleGateFor("cuda:1", specs)->timeout_seconds, 10);
  EXPECT_EQ(IdleGateFor("cuda:0", specs)->timeout_seconds, 60);
  EXPECT_FALSE(IdleGateFor("cpu", specs).has_value());
  EXPECT_FALSE(IdleGateFor("cuda:0", {}).has_value());
}

}  // namespace
}  // namespace kbench::executor
