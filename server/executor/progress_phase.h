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
    default:
      return "";
  }
}

inline void SetProgressPhase(v1::ProgressPhase phase, v1::Progress* progress) {
  progress->set_progress_phase(phase);
  progress->set_phase(LegacyProgressPhaseName(phase));
}

// Fills the enum of a report that set only the deprecated word; the executor loop applies it so
// that a producer not yet moved to SetProgressPhase (profile/) still reaches kbctl typed.
inline void FillProgressPhaseFromLegacyName(v1::Progress* progress) {
  if (progress->progress_phase() != v1::PROGRESS_PHASE_UNSPECIFIED) return;
  for (v1::ProgressPhase phase : {v1::PROGRESS_PHASE_WARMUP, v1::PROGRESS_PHASE_MEASURE,
                                  v1::PROGRESS_PHASE_CHECK, v1::PROGRESS_PHASE_PROFILE}) {
    if (progress->phase() == LegacyProgressPhaseName(phase)) progress->set_progress_phase(phase);
  }
}

}  // namespace kbench::executor
