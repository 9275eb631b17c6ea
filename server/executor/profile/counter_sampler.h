// The device's counters while a profile records (issue 29: NVML power and clocks as counter
// tracks in the Chrome trace): a thread reads them every period until stopped.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "server/executor/conditions/clean_stamp.h"
#include "server/executor/profile/activity.h"

namespace kbench::executor::profile {

// Thread-safe. The reader's ReadCounters runs on the sampler's thread.
class CounterSampler {
 public:
  // A 10 ms period puts several points in each of NVML's power updates (every 20-100 ms) and
  // costs the host a few NVML calls, on a thread of its own.
  static constexpr absl::Duration kDefaultPeriod = absl::Milliseconds(10);
  // The most samples kept (1000 s at the default period): a bound on the trace's size.
  static constexpr size_t kMaxSamples = 100'000;

  // Takes the first reading, then reads every period on its own thread. `reader` and `now` (the
  // records' clock) outlive the sampler.
  CounterSampler(ConditionsReader* reader, std::function<uint64_t()> now,
                 absl::Duration period = kDefaultPeriod);
  ~CounterSampler();
  CounterSampler(const CounterSampler&) = delete;
  CounterSampler& operator=(const CounterSampler&) = delete;

  // Takes one last reading, stops the thread and returns the samples in time order.
  std::vector<CounterSample> Stop();

 private:
  void Loop();
  void TakeSample();

  ConditionsReader* reader_;
  std::function<uint64_t()> now_;
  absl::Duration period_;
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::vector<CounterSample> samples_;
  std::thread thread_;
};

}  // namespace kbench::executor::profile
