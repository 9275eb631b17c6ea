// Secret check seeds and the physical floor, for the benchmark pipeline.
#include "server/executor/cheat_checks.h"

#include <algorithm>
#include <random>

#include "kernels/catalogue.h"
#include "server/executor/measure/physical_floor.h"

namespace kbench::executor {
namespace {

v1::FloorBasis ToProto(measure::FloorBasis basis) {
  switch (basis) {
    case measure::FloorBasis::kCopyBandwidth:
      return v1::FLOOR_BASIS_COPY_BANDWIDTH;
    case measure::FloorBasis::kL2Bandwidth:
      return v1::FLOOR_BASIS_L2_BANDWIDTH;
    case measure::FloorBasis::kPeakFlops:
      return v1::FLOOR_BASIS_PEAK_FLOPS;
    case measure::FloorBasis::kPeerBandwidth:
      return v1::FLOOR_BASIS_PEER_BANDWIDTH;
    case measure::FloorBasis::kNone:
      break;
  }
  return v1::FLOOR_BASIS_UNSPECIFIED;
}

// The fastest arithmetic the dtype's storage allows: an f32 problem may be computed with TF32
// tensor cores (within a loose tolerance), so its floor uses the faster of the two peaks.
double FastestPeakFlops(const DeviceRunner& runner, kernels::DType dtype) {
  const double peak = runner.PeakFlops(dtype);
  if (dtype == kernels::DType::kF32) return std::max(peak, runner.PeakFlops(kernels::DType::kTF32));
  return peak;
}

}  // namespace

uint64_t DrawCheckSeed() {
  std::random_device entropy;
  return (uint64_t{entropy()} << 32 | entropy()) | 1;
}

v1::PhysicalFloor JudgeFloor(const DeviceRunner& runner, const kernels::Problem& problem,
                             v1::MeasureMode mode, double median_seconds) {
  const kernels::Cost cost = kernels::FindOperation(problem.op)->cost(problem);
  measure::FloorQuestion q;
  q.median_seconds = median_seconds;
  q.bytes = cost.bytes;
  q.flops = cost.flops;
  q.copy_bandwidth_bytes_per_second = runner.info().copy_bandwidth_bytes_per_second();
  q.l2_bandwidth_bytes_per_second = runner.info().l2_bandwidth_bytes_per_second();
  q.l2_bytes = runner.info().l2_bytes();
  q.peak_flops = FastestPeakFlops(runner, problem.dtype);
  q.data_may_stay_in_l2 = mode == v1::MEASURE_MODE_HOT || mode == v1::MEASURE_MODE_GRAPH;
  if (runner.info().kind() == v1::DEVICE_KIND_CPU) q.margin = measure::kHostFloorMargin;
  return FloorOf(measure::JudgePhysicalFloor(q), median_seconds);
}

v1::PhysicalFloor JudgeCollectiveFloor(double bus_bytes, double peak_bus_bytes_per_second,
                                       double median_seconds) {
  measure::FloorQuestion q;
  q.median_seconds = median_seconds;
  q.bytes = static_cast<int64_t>(bus_bytes);
  q.peer_bandwidth_bytes_per_second = peak_bus_bytes_per_second;
  return FloorOf(measure::JudgePhysicalFloor(q), median_seconds);
}

v1::PhysicalFloor FloorOf(const measure::FloorVerdict& v, double median_seconds) {
  v1::PhysicalFloor f;
  f.set_judged(v.judged);
  f.set_basis(ToProto(v.basis));
  f.set_floor_seconds(v.floor_seconds);
  f.set_bytes_floor_seconds(v.bytes_floor_seconds);
  f.set_flops_floor_seconds(v.flops_floor_seconds);
  f.set_bandwidth_bytes_per_second(v.bandwidth_bytes_per_second);
  f.set_peak_flops(v.peak_flops);
  f.set_margin(v.margin);
  f.set_median_seconds(median_seconds);
  f.set_impossible(v.impossible);
  f.set_detail(v.detail);
  return f;
}

v1::OutputDefect ToProto(kernels::OutputDefect defect) {
  switch (defect) {
    case kernels::OutputDefect::kAllZeros:
      return v1::OUTPUT_DEFECT_ALL_ZEROS;
    case kernels::OutputDefect::kConstant:
      return v1::OUTPUT_DEFECT_CONSTANT;
    case kernels::OutputDefect::kCopyOfInput:
      return v1::OUTPUT_DEFECT_COPY_OF_INPUT;
    case kernels::OutputDefect::kNone:
      break;
  }
  return v1::OUTPUT_DEFECT_UNSPECIFIED;
}

}  // namespace kbench::executor
