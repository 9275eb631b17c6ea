// The impossible-time rule: a median under a fraction of the physical floor.
#include "server/executor/measure/physical_floor.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace kbench::measure {
namespace {

// The byte floor's rate: the L2's where the data may stay there between launches, otherwise
// DRAM's. 0 when the rate that applies is unknown (then bytes bound nothing).
double BandwidthFor(const FloorQuestion& q, FloorBasis* basis) {
  if (q.peer_bandwidth_bytes_per_second > 0) {
    *basis = FloorBasis::kPeerBandwidth;
    return q.peer_bandwidth_bytes_per_second;
  }
  if (q.data_may_stay_in_l2) {
    // Without the cache's size, any problem may sit in a cache: no byte floor (the cpu device).
    if (q.l2_bytes <= 0) return 0;
    if (static_cast<double>(q.bytes) <= kL2ResidentFactor * static_cast<double>(q.l2_bytes)) {
      *basis = FloorBasis::kL2Bandwidth;
      return q.l2_bandwidth_bytes_per_second;
    }
  }
  *basis = FloorBasis::kCopyBandwidth;
  return q.copy_bandwidth_bytes_per_second;
}

std::string Microseconds(double seconds) { return absl::StrFormat("%.3f us", seconds * 1e6); }

std::string DescribeBasis(const FloorVerdict& v, const FloorQuestion& q) {
  if (v.basis == FloorBasis::kPeakFlops) {
    return absl::StrFormat("%d FLOPs / peak %.4g FLOP/s", q.flops, v.peak_flops);
  }
  return absl::StrFormat("%d bytes / measured %s %.4g B/s", q.bytes, FloorBasisName(v.basis),
                         v.bandwidth_bytes_per_second);
}

}  // namespace

std::string FloorBasisName(FloorBasis basis) {
  switch (basis) {
    case FloorBasis::kCopyBandwidth:
      return "copy bandwidth";
    case FloorBasis::kL2Bandwidth:
      return "L2 bandwidth";
    case FloorBasis::kPeakFlops:
      return "peak FLOP rate";
    case FloorBasis::kPeerBandwidth:
      return "peer bandwidth";
    case FloorBasis::kNone:
      break;
  }
  return "none";
}

FloorVerdict JudgePhysicalFloor(const FloorQuestion& q) {
  FloorVerdict v;
  if (q.median_seconds <= 0) {
    v.detail = "not judged: the median is 0 (shorter than the clock's resolution)";
    return v;
  }
  FloorBasis bytes_basis = FloorBasis::kNone;
  const double bandwidth = BandwidthFor(q, &bytes_basis);
  if (bandwidth > 0 && q.bytes > 0) {
    v.bandwidth_bytes_per_second = bandwidth;
    v.bytes_floor_seconds = static_cast<double>(q.bytes) / bandwidth;
  }
  if (q.peak_flops > 0 && q.flops > 0) {
    v.peak_flops = q.peak_flops;
    v.flops_floor_seconds = static_cast<double>(q.flops) / q.peak_flops;
  }
  if (v.bytes_floor_seconds <= 0 && v.flops_floor_seconds <= 0) {
    v.detail = q.data_may_stay_in_l2 && q.l2_bytes <= 0
                   ? "not judged: the device's cache size and bandwidth are unknown"
                   : "not judged: no bandwidth or peak FLOP rate known for this device";
    return v;
  }
  v.judged = true;
  v.basis = v.flops_floor_seconds > v.bytes_floor_seconds ? FloorBasis::kPeakFlops : bytes_basis;
  v.floor_seconds = std::max(v.bytes_floor_seconds, v.flops_floor_seconds);
  v.margin = v.basis == FloorBasis::kL2Bandwidth ? kL2FloorMargin : q.margin;
  v.impossible = q.median_seconds < v.margin * v.floor_seconds;
  v.detail = absl::StrFormat("median %s %s %.0f%% of the physical floor %s (%s)",
                             Microseconds(q.median_seconds), v.impossible ? "is under" : "reaches",
                             100 * v.margin, Microseconds(v.floor_seconds), DescribeBasis(v, q));
  return v;
}

}  // namespace kbench::measure
