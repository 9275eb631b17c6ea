// The scheduler's view of time: every deadline (hang, cancel grace, start back-off) is read and
// waited for through this interface, so that tests drive time with a simulated clock instead of
// sleeping (the pattern of absl/time/clock_interface.h, which Debian's Abseil lacks).
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>

#include "absl/time/time.h"

namespace kbench::scheduler {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() = 0;
  // Waits on `cv`, whose mutex `lock` holds, until `done()` holds or Now() reaches `deadline`
  // (absl::InfiniteFuture(): no deadline). Returns done(). Whoever makes done() true notifies
  // `cv`; the clock ends the wait when time passes the deadline.
  virtual bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         absl::Time deadline, const std::function<bool()>& done) = 0;

  // The process's clock (absl::Now). Thread-safe; never destroyed.
  static Clock* Real();
};

}  // namespace kbench::scheduler
