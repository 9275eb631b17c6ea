// NVTX comes from the toolkit's header-only nvtx3: without a tool attached (Nsight Systems,
// Nsight Compute) each push/pop is a cheap no-op.
#include "server/executor/profile/phase_recorder.h"

#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace kbench::executor::profile {

PhaseRecorder::PhaseRecorder(Clock clock)
    : clock_(std::move(clock)),
      process_id_(static_cast<uint32_t>(getpid())),
      thread_id_(static_cast<uint32_t>(syscall(SYS_gettid))) {}

PhaseRecorder::Scope PhaseRecorder::Enter(const std::string& phase, const std::string& variant,
                                          int iteration) {
  const std::string name =
      iteration >= 0 ? absl::StrCat(phase, " ", iteration) : absl::StrCat(phase, " ", variant);
  nvtxRangePushA(name.c_str());
  HostSpan& span = spans_.emplace_back();
  span.phase = phase;
  span.variant = variant;
  span.iteration = iteration;
  span.process_id = process_id_;
  span.thread_id = thread_id_;
  span.start_ns = clock_();
  span.end_ns = span.start_ns;
  return Scope(this, spans_.size() - 1);
}

void PhaseRecorder::Close(size_t index) {
  spans_[index].end_ns = clock_();
  nvtxRangePop();
}

PhaseRecorder::Scope::Scope(Scope&& other) noexcept
    : recorder_(other.recorder_), index_(other.index_) {
  other.recorder_ = nullptr;
}

PhaseRecorder::Scope::~Scope() { End(); }

void PhaseRecorder::Scope::End() {
  if (recorder_ == nullptr) return;
  recorder_->Close(index_);
  recorder_ = nullptr;
}

NvtxRange::NvtxRange(const char* name) { nvtxRangePushA(name); }
NvtxRange::~NvtxRange() { nvtxRangePop(); }

}  // namespace kbench::executor::profile
