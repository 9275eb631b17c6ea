// The real clock: wall time from absl::Now, waits on the condition variable's own timer.
#include "server/scheduler/clock.h"

#include <algorithm>
#include <chrono>

#include "absl/time/clock.h"

namespace kbench::scheduler {
namespace {

class RealClock : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }

  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 absl::Time deadline, const std::function<bool()>& done) override {
    while (!done()) {
      const absl::Duration left = deadline - Now();
      if (left <= absl::ZeroDuration()) return false;
      // Waited in slices of at most a minute: the wall clock may be stepped while we wait.
      cv.wait_for(lock, absl::ToChronoNanoseconds(std::min(left, absl::Minutes(1))));
    }
    return true;
  }
};

}  // namespace

Clock* Clock::Real() {
  static Clock* clock = new RealClock();
  return clock;
}

}  // namespace kbench::scheduler
