// The physical floor of a kernel's time: no kernel moves its bytes faster than the device's
// measured bandwidth or does its arithmetic faster than the peak FLOP rate. A median under it
// is impossible: the kernel skipped the work (issue 10, item 5). Device-independent, so that the
// rule is tested without a GPU.
#pragma once

#include <cstdint>
#include <string>

namespace kbench::measure {

enum class FloorBasis {
  kNone,           // not judged: no rate known for this device and mode
  kCopyBandwidth,  // bytes / measured DRAM copy bandwidth
  kL2Bandwidth,    // bytes / measured L2-resident copy bandwidth (hot and graph modes)
  kPeakFlops,      // FLOPs / peak FLOP rate of the dtype
  kPeerBandwidth,  // a collective's bus bytes / the measured peak between its ranks (issue 30)
};

// A median may reach this fraction of the floor before it is impossible. The floors are
// measured (copy bandwidths) or from datasheets (peak rates): a read-only kernel can beat a
// copy's read+write rate by a little, and the L2's rate depends on where the data sits; a kernel
// that skips its work lands far under any of them.
inline constexpr double kFloorMargin = 0.75;
// The L2's floor is held more loosely: a copy of a quarter of the L2 lasts a few microseconds,
// so the gaps between back-to-back launches weigh on its measured rate, and graph launches have
// smaller gaps than the stream launches it was measured with.
inline constexpr double kL2FloorMargin = 0.5;
// The cpu device's copy bandwidth is a few memcpy calls timed when its executor starts, on a host
// that other processes share: it can read low, and a host loop with no work to skip is never far
// above it. A host variant is impossible only under a quarter of its floor.
inline constexpr double kHostFloorMargin = 0.25;
// Hot and graph modes keep the data of a problem up to this multiple of the L2 size partly in
// the L2 between launches (the H100's L2 is not a strict LRU), so such a problem is held to the
// L2's bandwidth, the lenient floor.
inline constexpr double kL2ResidentFactor = 2.0;

struct FloorQuestion {
  // Per launch, seconds.
  double median_seconds = 0;
  // The operation's cost model for one launch.
  int64_t bytes = 0;
  int64_t flops = 0;
  // The device's measured rates and L2 size (0: unknown).
  double copy_bandwidth_bytes_per_second = 0;
  double l2_bandwidth_bytes_per_second = 0;
  int64_t l2_bytes = 0;
  // The dtype's peak FLOP/s (0: unknown).
  double peak_flops = 0;
  // A collective: `bytes` are its bus bytes, held to this measured peak between its ranks
  // instead of the device's own bandwidths (0: not a collective).
  double peer_bandwidth_bytes_per_second = 0;
  // Hot or graph mode: back-to-back launches that may find their data in the L2.
  bool data_may_stay_in_l2 = false;
  // The margin of the copy and FLOP floors (the L2's is kL2FloorMargin).
  double margin = kFloorMargin;
};

struct FloorVerdict {
  bool judged = false;
  FloorBasis basis = FloorBasis::kNone;
  double floor_seconds = 0;
  double bytes_floor_seconds = 0;
  double flops_floor_seconds = 0;
  // The bandwidth the byte floor used (copy or L2).
  double bandwidth_bytes_per_second = 0;
  double peak_flops = 0;
  double margin = 0;
  bool impossible = false;
  // For people: the verdict, naming the median, the floor and its basis; or why not judged.
  std::string detail;
};

FloorVerdict JudgePhysicalFloor(const FloorQuestion& q);

// "copy bandwidth", "L2 bandwidth", "peak FLOP rate", "none".
std::string FloorBasisName(FloorBasis basis);

}  // namespace kbench::measure
