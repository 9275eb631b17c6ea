// Checks a cheating kernel cannot pass (issue 10, item 5), as the benchmark pipeline applies
// them to every variant: the secret seeds of the check inputs, and the physical floor that a
// variant's median is held to. The degenerate-output detectors live with the comparison
// (kernels/output_defects.h, used by CompareWithReference).
#pragma once

#include <cstdint>

#include "kbench/v1/integrity.pb.h"
#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"
#include "kernels/output_defects.h"
#include "server/executor/device_runner.h"
#include "server/executor/measure/physical_floor.h"

namespace kbench::executor {

// A seed for the inputs of a check, drawn from the executor's entropy for each job: never from
// the spec, so that no kernel can be written for the inputs it will be checked on. Never 0.
uint64_t DrawCheckSeed();

// Holds `median_seconds` (per launch) of `problem` on `runner`'s device in `mode` to the
// physical floor: bytes over the measured copy bandwidth (the L2's in hot and graph modes when
// the problem fits in it), FLOPs over the peak rate.
v1::PhysicalFloor JudgeFloor(const DeviceRunner& runner, const kernels::Problem& problem,
                             v1::MeasureMode mode, double median_seconds);

// A collective's median per call held to its bus bytes over the interconnect's peak measured
// between its ranks (issue 30): a user collective that skips moving its data is impossible.
v1::PhysicalFloor JudgeCollectiveFloor(double bus_bytes, double peak_bus_bytes_per_second,
                                       double median_seconds);

// A verdict of measure::JudgePhysicalFloor as the result carries it.
v1::PhysicalFloor FloorOf(const measure::FloorVerdict& v, double median_seconds);

v1::OutputDefect ToProto(kernels::OutputDefect defect);

}  // namespace kbench::executor
