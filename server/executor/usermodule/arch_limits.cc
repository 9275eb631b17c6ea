// CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" (CUDA 13).
#include "server/executor/usermodule/arch_limits.h"

namespace kbench::executor::usermodule {
namespace {

struct ArchRow {
  int sm;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int shared_per_sm_kib;
  int shared_optin_kib;
  int reserved_kib;
};

constexpr ArchRow kRows[] = {
    {70, 2048, 32, 96, 96, 0},    {72, 2048, 32, 96, 96, 0},   {75, 1024, 16, 64, 64, 0},
    {80, 2048, 32, 164, 163, 1},  {86, 1536, 16, 100, 99, 1},  {87, 2048, 32, 164, 163, 1},
    {89, 1536, 24, 100, 99, 1},   {90, 2048, 32, 228, 227, 1}, {100, 2048, 32, 228, 227, 1},
    {103, 2048, 32, 228, 227, 1},
};

}  // namespace

std::optional<profile::DeviceLimits> LimitsForArch(const kernels::SmArch& arch) {
  for (const ArchRow& r : kRows) {
    if (r.sm != arch.number()) continue;
    profile::DeviceLimits l;
    l.compute_major = arch.major;
    l.compute_minor = arch.minor;
    l.warp_size = 32;
    l.max_threads_per_block = 1024;
    l.max_threads_per_sm = r.max_threads_per_sm;
    l.max_blocks_per_sm = r.max_blocks_per_sm;
    l.regs_per_block = 65536;
    l.regs_per_sm = 65536;
    l.shared_per_block = 48 * 1024;
    l.shared_per_block_optin = int64_t{r.shared_optin_kib} * 1024;
    l.shared_per_sm = int64_t{r.shared_per_sm_kib} * 1024;
    l.reserved_shared_per_block = int64_t{r.reserved_kib} * 1024;
    return l;
  }
  return std::nullopt;
}

}  // namespace kbench::executor::usermodule
