// Theoretical occupancy: known H100 values, and agreement with CUDA's own calculator
// (cuda_occupancy.h, header-only) over a sweep of launch configurations.
#include "server/executor/profile/occupancy.h"

#include <cuda_occupancy.h>

#include "gtest/gtest.h"

namespace kbench::executor::profile {
namespace {

TEST(TheoreticalOccupancy, IsFullFor256ThreadsAnd32RegistersOnH100) {
  const Occupancy o =
      TheoreticalOccupancy(H100Limits(), {.threads_per_block = 256, .registers_per_thread = 32});
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.fraction, 1.0);
}

TEST(TheoreticalOccupancy, IsLimitedBySharedMemoryWith64KiBPerBlock) {
  // 64 KiB + the driver's 1 KiB per block: 3 blocks fit in 228 KiB.
  const Occupancy o = TheoreticalOccupancy(
      H100Limits(),
      {.threads_per_block = 256, .registers_per_thread = 32, .dynamic_shared_bytes = 64 * 1024});
  EXPECT_EQ(o.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(o.fraction, 24.0 / 64.0);
  EXPECT_EQ(o.limiter, "shared memory");
}

TEST(TheoreticalOccupancy, IsLimitedByRegistersAt128PerThread) {
  // 128 regs × 32 lanes = 4096 per warp; 16384 per sub-partition → 4 warps each, 16 per SM.
  const Occupancy o =
      TheoreticalOccupancy(H100Limits(), {.threads_per_block = 128, .registers_per_thread = 128});
  EXPECT_EQ(o.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(o.fraction, 0.25);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(TheoreticalOccupancy, IsLimitedByBlockCountForTinyBlocks) {
  // 32 blocks of one warp each: half the SM's 64 warps.
  const Occupancy o =
      TheoreticalOccupancy(H100Limits(), {.threads_per_block = 32, .registers_per_thread = 16});
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.fraction, 0.5);
  EXPECT_EQ(o.limiter, "blocks");
}

TEST(TheoreticalOccupancy, IsZeroWhenSharedMemoryExceedsTheBlockLimit) {
  const Occupancy o = TheoreticalOccupancy(
      H100Limits(), {.threads_per_block = 128, .dynamic_shared_bytes = 228 * 1024});
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_EQ(o.fraction, 0);
  EXPECT_NE(o.limiter.find("shared memory"), std::string::npos);
}

TEST(TheoreticalOccupancy, IsZeroForABlockLargerThanTheDeviceAllows) {
  const Occupancy o = TheoreticalOccupancy(H100Limits(), {.threads_per_block = 2048});
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_NE(o.limiter.find("block size"), std::string::npos);
}

TEST(TheoreticalOccupancy, IsZeroWhenRegistersPerBlockExceedTheLimit) {
  // 1024 threads × 255 registers > 65536.
  const Occupancy o =
      TheoreticalOccupancy(H100Limits(), {.threads_per_block = 1024, .registers_per_thread = 255});
  EXPECT_EQ(o.blocks_per_sm, 0);
  EXPECT_NE(o.limiter.find("registers"), std::string::npos);
}

TEST(TheoreticalOccupancy, MatchesCudaOccupancyCalculatorOverASweep) {
  const DeviceLimits d = H100Limits();
  cudaOccDeviceProp prop;
  prop.computeMajor = d.compute_major;
  prop.computeMinor = d.compute_minor;
  prop.maxThreadsPerBlock = d.max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  prop.regsPerBlock = d.regs_per_block;
  prop.regsPerMultiprocessor = d.regs_per_sm;
  prop.warpSize = d.warp_size;
  prop.sharedMemPerBlock = static_cast<size_t>(d.shared_per_block);
  prop.sharedMemPerMultiprocessor = static_cast<size_t>(d.shared_per_sm);
  prop.numSms = 132;
  prop.sharedMemPerBlockOptin = static_cast<size_t>(d.shared_per_block_optin);
  prop.reservedSharedMemPerBlock = static_cast<size_t>(d.reserved_shared_per_block);
  cudaOccDeviceState state;
  int compared = 0;
  for (int threads : {32, 64, 96, 128, 160, 192, 256, 384, 512, 640, 768, 1024}) {
    for (int regs : {0, 8, 16, 24, 32, 40, 48, 64, 72, 96, 128, 168, 200, 255}) {
      for (int64_t smem : {0, 1000, 4096, 12288, 40000, 65536, 100000, 150000, 200000}) {
        cudaOccFuncAttributes attr;
        attr.maxThreadsPerBlock = 1024;
        attr.numRegs = regs;
        attr.sharedSizeBytes = 0;
        attr.maxDynamicSharedSizeBytes = static_cast<size_t>(d.shared_per_block_optin);
        attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        attr.numBlockBarriers = 1;
        cudaOccResult result;
        const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(
            &result, &prop, &attr, &state, threads, static_cast<size_t>(smem));
        const Occupancy ours = TheoreticalOccupancy(d, {.threads_per_block = threads,
                                                        .registers_per_thread = regs,
                                                        .dynamic_shared_bytes = smem});
        const int theirs = err == CUDA_OCC_SUCCESS ? result.activeBlocksPerMultiprocessor : 0;
        EXPECT_EQ(ours.blocks_per_sm, theirs)
            << "threads " << threads << " regs " << regs << " smem " << smem;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 12 * 14 * 9);
}

}  // namespace
}  // namespace kbench::executor::profile
