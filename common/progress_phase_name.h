// The word of each ProgressPhase ("warmup", "measure", ...): what the deprecated Progress.phase
// string carries, shared by the executor (which still sets that string for older clients) and
// kbctl (which shows it). Header-only; its users link kbench_proto.
#pragma once

#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench {

// "" for PROGRESS_PHASE_UNSPECIFIED.
inline std::string ProgressPhaseName(v1::ProgressPhase phase) {
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

}  // namespace kbench
