// Theoretical occupancy of a kernel launch, computed from the device's limits as CUDA's
// occupancy calculator (cuda_occupancy.h) does: the fewest resident blocks per SM allowed by
// warps, registers, shared memory and the block-count limit. Pure function; no CUDA.
#pragma once

#include <cstdint>
#include <string>

namespace kbench::executor::profile {

// The per-device numbers that bound residency (cudaDeviceProp's fields of the same names).
struct DeviceLimits {
  int compute_major = 0;
  int compute_minor = 0;
  int warp_size = 32;
  int max_threads_per_block = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int regs_per_block = 0;
  int regs_per_sm = 0;
  int64_t shared_per_block = 0;        // default per-block limit (48 KiB)
  int64_t shared_per_block_optin = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int64_t shared_per_sm = 0;
  int64_t reserved_shared_per_block = 0;  // the driver's per-block reservation (sm_80+: 1 KiB)
};

// The H100 SXM's limits (cudaGetDeviceProperties on an H100 80GB HBM3, CUDA 13).
DeviceLimits H100Limits();

// One launch's configuration and the kernel's per-thread / per-block resources.
struct LaunchResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t dynamic_shared_bytes = 0;
};

struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  // Resident warps over the SM's maximum, in [0, 1].
  double fraction = 0;
  // What bounds blocks_per_sm: "warps", "registers", "shared memory", "blocks"; or, when the
  // launch cannot run at all (0 blocks), why.
  std::string limiter;
};

// Blocks resident per SM for `launch` on a device with `limits`, with the default shared
// memory carve-out (the whole shared_per_sm) and no cluster constraints.
Occupancy TheoreticalOccupancy(const DeviceLimits& limits, const LaunchResources& launch);

}  // namespace kbench::executor::profile
