// Choosing the clock floor (see clock_floor.h).
#include "server/executor/measure/clock_floor.h"

namespace kbench::measure {

ClockFloor ChooseClockFloor(double fraction, double max_sm_clock_mhz, double warmup_probe_mhz,
                            std::optional<bool> slowdown_reported) {
  ClockFloor floor;
  const bool locked_low = warmup_probe_mhz > 0 && slowdown_reported.has_value() &&
                          !*slowdown_reported &&
                          (max_sm_clock_mhz <= 0 || warmup_probe_mhz < fraction * max_sm_clock_mhz);
  if (locked_low) {
    floor.basis = ClockFloorBasis::kWarmupProbe;
    floor.reference_mhz = warmup_probe_mhz;
  } else if (max_sm_clock_mhz > 0) {
    floor.basis = ClockFloorBasis::kMaxSmClock;
    floor.reference_mhz = max_sm_clock_mhz;
  } else {
    return floor;
  }
  floor.mhz = fraction * floor.reference_mhz;
  return floor;
}

std::string ClockFloorBasisName(ClockFloorBasis basis) {
  switch (basis) {
    case ClockFloorBasis::kMaxSmClock:
      return "max_sm_clock";
    case ClockFloorBasis::kWarmupProbe:
      return "warmup_probe";
    case ClockFloorBasis::kNone:
      break;
  }
  return "none";
}

}  // namespace kbench::measure
