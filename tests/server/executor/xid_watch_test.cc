// The Xid watch over a fake NVML (an Api whose entry points read a scripted queue): it
// registers for Xid events only, drains what waits without blocking, keeps totals, and says why
// when the driver cannot watch.
#include <deque>

#include "gtest/gtest.h"
#include "server/common/nvml_events.h"

namespace kbench::nvml {
namespace {

// The fake driver's state (its entry points are plain functions).
struct FakeDriver {
  std::deque<EventData> waiting;
  unsigned long long registered_types = 0;
  int created = 0, freed = 0, waits = 0;
  Return register_result = kSuccess;
};
FakeDriver* driver = nullptr;
Device const kDevice = reinterpret_cast<Device>(0x1234);
EventSet const kSet = reinterpret_cast<EventSet>(0x5678);

Return Create(EventSet* set) {
  ++driver->created;
  *set = kSet;
  return kSuccess;
}
Return Register(Device, unsigned long long types, EventSet) {
  driver->registered_types = types;
  return driver->register_result;
}
Return Wait(EventSet, EventData* data, unsigned int timeout_ms) {
  ++driver->waits;
  EXPECT_EQ(timeout_ms, 0u) << "a drain never blocks";
  if (driver->waiting.empty()) return kErrorTimeout;
  *data = driver->waiting.front();
  driver->waiting.pop_front();
  return kSuccess;
}
Return Free(EventSet) {
  ++driver->freed;
  return kSuccess;
}
const char* ErrorString(Return) { return "Not Supported"; }

class XidWatchTest : public testing::Test {
 protected:
  void SetUp() override {
    driver = &fake_;
    api_.event_set_create = Create;
    api_.register_events = Register;
    api_.event_set_wait = Wait;
    api_.event_set_free = Free;
    api_.error_string = ErrorString;
  }
  void TearDown() override { driver = nullptr; }
  static EventData Xid(unsigned long long number) {
    return EventData{kDevice, kEventTypeXidCriticalError, number, 0, 0};
  }

  FakeDriver fake_;
  Api api_;
};

TEST_F(XidWatchTest, CountsEveryXidSinceItWasMadeAndKeepsTheLast) {
  XidWatch watch(&api_, kDevice);
  ASSERT_TRUE(watch.watching()) << watch.why_not();
  EXPECT_EQ(fake_.registered_types, kEventTypeXidCriticalError);
  EXPECT_EQ(watch.Drain().events, 0u);
  fake_.waiting = {Xid(13), Xid(31)};
  XidWatch::Seen seen = watch.Drain();
  EXPECT_EQ(seen.events, 2u);
  EXPECT_EQ(seen.last_xid, 31u);
  EXPECT_TRUE(fake_.waiting.empty());
  seen = watch.Drain();  // nothing new: the totals stay
  EXPECT_EQ(seen.events, 2u);
  EXPECT_EQ(seen.last_xid, 31u);
}

TEST_F(XidWatchTest, IgnoresOtherEventTypes) {
  XidWatch watch(&api_, kDevice);
  fake_.waiting = {EventData{kDevice, 0x1 /* single-bit ECC */, 0, 0, 0}, Xid(79)};
  const XidWatch::Seen seen = watch.Drain();
  EXPECT_EQ(seen.events, 1u);
  EXPECT_EQ(seen.last_xid, 79u);
}

TEST_F(XidWatchTest, ADrainIsBoundedWhenEventsKeepComing) {
  XidWatch watch(&api_, kDevice);
  for (int i = 0; i < XidWatch::kMaxPerDrain + 10; ++i) fake_.waiting.push_back(Xid(43));
  EXPECT_EQ(watch.Drain().events, static_cast<uint64_t>(XidWatch::kMaxPerDrain));
  EXPECT_EQ(watch.Drain().events, static_cast<uint64_t>(XidWatch::kMaxPerDrain + 10));
}

TEST_F(XidWatchTest, SaysWhyWhenTheDriverCannotWatchAndFreesItsSet) {
  fake_.register_result = 3;  // NVML_ERROR_NOT_SUPPORTED
  {
    XidWatch watch(&api_, kDevice);
    EXPECT_FALSE(watch.watching());
    EXPECT_EQ(watch.why_not(), "nvmlDeviceRegisterEvents failed: Not Supported");
    fake_.waiting = {Xid(31)};
    EXPECT_EQ(watch.Drain().events, 0u);
    EXPECT_EQ(fake_.waits, 0);
  }
  EXPECT_EQ(fake_.created, 1);
  EXPECT_EQ(fake_.freed, 1);
}

TEST_F(XidWatchTest, ADriverWithoutEventSetsIsNotWatched) {
  api_.event_set_wait = nullptr;
  XidWatch watch(&api_, kDevice);
  EXPECT_FALSE(watch.watching());
  EXPECT_EQ(watch.why_not(), "this driver's NVML has no event sets");
  XidWatch no_device(&api_, nullptr);
  EXPECT_EQ(no_device.why_not(), "no NVML device");
}

TEST_F(XidWatchTest, FreesItsSetWhenItGoes) {
  { XidWatch watch(&api_, kDevice); }
  EXPECT_EQ(fake_.freed, 1);
}

}  // namespace
}  // namespace kbench::nvml
