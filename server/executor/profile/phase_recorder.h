// The job's phases (prepare, check, warm-up, profile, each iteration) as NVTX ranges, so they
// show in Nsight Systems, and as host spans on the activity records' clock, so they show in our
// own trace.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "server/executor/profile/activity.h"

namespace kbench::executor::profile {

// Not thread-safe: one job thread records its own phases.
class PhaseRecorder {
 public:
  using Clock = std::function<uint64_t()>;
  // `clock` gives ns on the activity records' clock: in a job the recorder's Now(), which for
  // CUPTI is TraceClockNow (CLOCK_MONOTONIC_RAW, trace_clock.h); a fake clock in tests.
  explicit PhaseRecorder(Clock clock);

  // An open phase: pushed as an NVTX range when entered, popped and recorded when it ends
  // (its destructor, or End()).
  class [[nodiscard]] Scope {
   public:
    Scope(Scope&& other) noexcept;
    Scope& operator=(Scope&&) = delete;
    Scope(const Scope&) = delete;
    ~Scope();
    void End();

   private:
    friend class PhaseRecorder;
    Scope(PhaseRecorder* recorder, size_t index) : recorder_(recorder), index_(index) {}
    PhaseRecorder* recorder_;
    size_t index_;
  };

  // NVTX range name: "<phase> <variant>", or "iteration <n>".
  Scope Enter(const std::string& phase, const std::string& variant, int iteration = -1);

  const std::vector<HostSpan>& spans() const { return spans_; }

 private:
  void Close(size_t index);

  Clock clock_;
  uint32_t process_id_;
  uint32_t thread_id_;
  std::vector<HostSpan> spans_;
};

// An NVTX push/pop range and nothing else (the Nsight Compute target's filter range).
class [[nodiscard]] NvtxRange {
 public:
  explicit NvtxRange(const char* name);
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace kbench::executor::profile
