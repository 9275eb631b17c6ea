// Sets a progress report's phase in both its forms: the ProgressPhase enum that kbctl reads, and
// the deprecated string that clients predating the enum still show.
#pragma once

#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench::executor {

// The deprecated Progress.phase word of `phase` ("" for UNSPECIFIED).
inline std::string LegacyProgressPhaseName(v1::ProgressPhase phase) {
  switch (phase) {
    case v1::PROGRESS_PHASE_WARMUP:
      return "warmup";
    case v1::PROGRESS_PHASE_MEASURE:
      return "measure";
    case v1::PROGRESS_PHASE_CHECK:
      return "check";
    case v1::PROGRESS_PHASE_PROFILE:
      return "profile";
    case v1::PROGRESS_PHASE_NCU:
      return "ncu";
    default:
      return "";
  }
}

inline void SetProgressPhase(v1::ProgressPhase phase, v1::Progress* progress) {
  progress->set_progress_phase(phase);
  progress->set_phase(LegacyProgressPhaseName(phase));
}

}  // namespace kbench::executor
