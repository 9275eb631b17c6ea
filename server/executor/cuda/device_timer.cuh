// %globaltimer: the GPU's nanosecond wall clock, shared by all SMs (unlike clock64()).
#pragma once

#include <cstdint>

namespace kbench::executor::cuda {

__device__ __forceinline__ uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace kbench::executor::cuda
