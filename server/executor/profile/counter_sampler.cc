// The counter sampler's thread.
#include "server/executor/profile/counter_sampler.h"

#include <chrono>
#include <utility>

namespace kbench::executor::profile {

CounterSampler::CounterSampler(ConditionsReader* reader, std::function<uint64_t()> now,
                               absl::Duration period)
    : reader_(reader), now_(std::move(now)), period_(period) {
  TakeSample();  // the start of the recording is on the track, however short it is
  thread_ = std::thread([this] { Loop(); });
}

CounterSampler::~CounterSampler() { Stop(); }

std::vector<CounterSample> CounterSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return samples_;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  TakeSample();  // the end of the recording is on the track too
  std::lock_guard<std::mutex> lock(mu_);
  return samples_;
}

void CounterSampler::Loop() {
  const auto period = absl::ToChronoNanoseconds(period_);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_cv_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    TakeSample();
    lock.lock();
  }
}

void CounterSampler::TakeSample() {
  const ConditionsReading r = reader_->ReadCounters();
  CounterSample s;
  s.time_ns = now_();
  s.power_watts = r.power_watts;
  s.sm_clock_mhz = r.sm_clock_mhz;
  s.memory_clock_mhz = r.memory_clock_mhz;
  s.temperature_c = r.temperature_c;
  std::lock_guard<std::mutex> lock(mu_);
  if (samples_.size() < kMaxSamples) samples_.push_back(s);
}

}  // namespace kbench::executor::profile
