// Sets a progress report's phase in both its forms: the ProgressPhase enum that kbctl reads, and
// the deprecated string that clients predating the enum still show.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/progress_phase_name.h"
#include "kbench/v1/types.pb.h"

namespace kbench::executor {

inline void SetProgressPhase(v1::ProgressPhase phase, v1::Progress* progress) {
  progress->set_progress_phase(phase);
  progress->set_phase(ProgressPhaseName(phase));
}

// Sends one progress report to a job's `progress` callback (nothing when it has none).
inline void ReportProgress(const std::function<void(const v1::Progress&)>& progress,
                           v1::ProgressPhase phase, const std::string& variant, int64_t samples,
                           double noise, double elapsed_seconds) {
  if (!progress) return;
  v1::Progress p;
  SetProgressPhase(phase, &p);
  p.set_variant(variant);
  p.set_samples(samples);
  p.set_noise(noise);
  p.set_elapsed_seconds(elapsed_seconds);
  progress(p);
}

}  // namespace kbench::executor
