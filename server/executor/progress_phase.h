// Sets a progress report's phase in both its forms: the ProgressPhase enum that kbctl reads, and
// the deprecated string that clients predating the enum still show.
#pragma once

#include <string>

#include "common/progress_phase_name.h"
#include "kbench/v1/types.pb.h"

namespace kbench::executor {

inline void SetProgressPhase(v1::ProgressPhase phase, v1::Progress* progress) {
  progress->set_progress_phase(phase);
  progress->set_phase(ProgressPhaseName(phase));
}

}  // namespace kbench::executor
