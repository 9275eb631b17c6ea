// The SM clock under which a timed sample is thrown away, and what it is based on: the device's
// maximum SM clock (as nvbench's throttle threshold is), or the clock warm-up saw when an
// administrator has locked the clocks lower (issue 15, item 1). Device-independent, so that
// the choice is tested without a GPU.
#pragma once

#include <optional>
#include <string>

namespace kbench::measure {

enum class ClockFloorBasis {
  kNone,         // no clock known: nothing is discarded
  kMaxSmClock,   // fraction x the maximum SM clock
  kWarmupProbe,  // fraction x the clock probed during warm-up (clocks locked low)
};

struct ClockFloor {
  double mhz = 0;
  ClockFloorBasis basis = ClockFloorBasis::kNone;
  // The clock the fraction was taken of.
  double reference_mhz = 0;
};

// `max_sm_clock_mhz`: NVML's maximum SM clock (or the CUDA device attribute); 0 if unknown.
// `warmup_probe_mhz`: the SM clock the probes measured during warm-up; 0 if none ran.
// `slowdown_reported`: whether NVML reported a slowdown reason (power cap, thermal, ...) during
// warm-up; nullopt without NVML. A warm-up clock under the max-based floor with NVML reporting
// no slowdown means the clocks were set low on purpose (nvidia-smi -lgc / -ac): the floor then
// follows the warm-up clock, so that a locked GPU is measured rather than discarded. Under a
// reported slowdown, or without NVML to tell, the floor stays on the maximum clock and the
// throttled samples are discarded (and the run fails if nothing is kept).
ClockFloor ChooseClockFloor(double fraction, double max_sm_clock_mhz, double warmup_probe_mhz,
                            std::optional<bool> slowdown_reported);

// "max_sm_clock", "warmup_probe" or "none".
std::string ClockFloorBasisName(ClockFloorBasis basis);

}  // namespace kbench::measure
