// Bounds on a benchmark's buffer placements (JobSpec.placements), shared by kbenchd's submit
// validation (count and memory footprint) and the executor that draws the placements.
// Header-only, like stopping_defaults.h.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kbench {

// More copies of a problem's tensors than this are refused at submit.
inline constexpr int32_t kMaxPlacements = 16;
// The largest gap left between two consecutive tensors of a placement: past a few MiB the
// offsets between tensors repeat what smaller gaps already explore modulo the memory's
// interleave, while the footprint keeps growing.
inline constexpr int64_t kMaxPlacementGapBytes = int64_t{8} << 20;

// INVALID_ARGUMENT naming the field unless `placements` is in [0, kMaxPlacements] (0 and 1 both
// mean one placement).
inline absl::Status CheckPlacementCount(int32_t placements) {
  if (placements >= 0 && placements <= kMaxPlacements) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("placements: ", placements, " is outside [0, ", kMaxPlacements, "]"));
}

}  // namespace kbench
