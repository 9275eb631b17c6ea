// The occupancy calculation. Granularities per architecture follow cuda_occupancy.h (CUDA 13):
// registers are allocated per warp in units of 256, per SM sub-partition (4 of them on every
// architecture since Volta); shared memory in units of 128 bytes from sm_80 (256 before).
#include "server/executor/profile/occupancy.h"

#include <algorithm>
#include <climits>

namespace kbench::executor::profile {
namespace {

int64_t DivideRoundUp(int64_t x, int64_t y) { return (x + y - 1) / y; }
int64_t RoundUp(int64_t x, int64_t y) { return DivideRoundUp(x, y) * y; }

int SharedAllocationGranularity(const DeviceLimits& d) { return d.compute_major >= 8 ? 128 : 256; }
int SubPartitions(const DeviceLimits& d) {
  return d.compute_major == 6 && d.compute_minor == 0 ? 2 : 4;
}
constexpr int kRegisterAllocationUnit = 256;
int MaxRegistersPerThread(const DeviceLimits& d) { return d.compute_major >= 7 ? 256 : 255; }

}  // namespace

DeviceLimits H100Limits() {
  DeviceLimits d;
  d.compute_major = 9;
  d.compute_minor = 0;
  d.warp_size = 32;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = 2048;
  d.max_blocks_per_sm = 32;
  d.regs_per_block = 65536;
  d.regs_per_sm = 65536;
  d.shared_per_block = 48 * 1024;
  d.shared_per_block_optin = 227 * 1024;
  d.shared_per_sm = 228 * 1024;
  d.reserved_shared_per_block = 1024;
  return d;
}

Occupancy TheoreticalOccupancy(const DeviceLimits& d, const LaunchResources& launch) {
  Occupancy out;
  if (d.warp_size <= 0 || d.max_threads_per_sm <= 0) {
    out.limiter = "device limits unknown";
    return out;
  }
  if (launch.threads_per_block <= 0 || launch.threads_per_block > d.max_threads_per_block) {
    out.limiter = "block size outside the device's limit";
    return out;
  }
  const int64_t max_warps_per_sm = d.max_threads_per_sm / d.warp_size;
  const int64_t warps_per_block = DivideRoundUp(launch.threads_per_block, d.warp_size);

  // Warps (threads) per SM.
  int64_t blocks = max_warps_per_sm / warps_per_block;
  std::string limiter = "warps";
  const auto limit = [&](int64_t candidate, const char* why) {
    if (candidate < blocks) {
      blocks = candidate;
      limiter = why;
    }
  };
  limit(d.max_blocks_per_sm, "blocks");

  // Registers: allocated per warp, in each SM sub-partition.
  if (launch.registers_per_thread > 0) {
    const int parts = SubPartitions(d);
    const int64_t regs_per_warp =
        RoundUp(int64_t{launch.registers_per_thread} * d.warp_size, kRegisterAllocationUnit);
    const int64_t regs_per_block = regs_per_warp * warps_per_block;
    // The hardware's launch check assumes warps spread over all sub-partitions.
    const int64_t regs_assumed = regs_per_warp * RoundUp(warps_per_block, parts);
    if (launch.registers_per_thread > MaxRegistersPerThread(d) ||
        regs_per_block > d.regs_per_block || regs_assumed > d.regs_per_block) {
      out.limiter = "registers per block exceed the device's limit";
      return out;
    }
    const int64_t warps_per_part = (d.regs_per_sm / parts) / regs_per_warp;
    limit((warps_per_part * parts) / warps_per_block, "registers");
  }

  // Shared memory, with the driver's per-block reservation, in allocation units.
  const int64_t smem =
      launch.static_shared_bytes + launch.dynamic_shared_bytes + d.reserved_shared_per_block;
  const int64_t smem_allocated = RoundUp(smem, SharedAllocationGranularity(d));
  const int64_t smem_limit = std::max(d.shared_per_block, d.shared_per_block_optin) +
                             (d.compute_major >= 8 ? d.reserved_shared_per_block : 0);
  if (smem_allocated > smem_limit) {
    out.limiter = "shared memory per block exceeds the device's limit";
    return out;
  }
  if (smem_allocated > 0) limit(d.shared_per_sm / smem_allocated, "shared memory");

  out.blocks_per_sm = static_cast<int>(std::max<int64_t>(blocks, 0));
  out.warps_per_sm = static_cast<int>(out.blocks_per_sm * warps_per_block);
  out.fraction = static_cast<double>(out.warps_per_sm) / static_cast<double>(max_warps_per_sm);
  out.limiter = out.blocks_per_sm == 0 ? "no block fits on an SM" : limiter;
  return out;
}

}  // namespace kbench::executor::profile
