// The red-team corpus (issue 23, item 8): user kernels for `add` (out = a + b, f32) that try to
// be timed faster than they compute, one per exploit class. Each entry follows add's ABI
// (a, b, out, n) and is launched with --grid "(n+255)/256" --block 256 unless manifest.txt says
// otherwise. manifest.txt names the verdict each must get; run_redteam.sh submits them.
// Compiled by NVRTC in kbench's executor: no host code, no headers beyond NVRTC's built-ins.
// Every decision a cheat makes is fixed for the whole launch or taken per block or per element
// on data no other block writes, so the cheat is exact when it computes (a decision that raced
// with other blocks' writes would fail the first checked run and prove nothing).

// The paced spin: about `ns` nanoseconds on %globaltimer, in one thread, so that a cheat's time
// lands just above the physical floor (16M f32 add: 201 MB; at ~3.0 TB/s the floor's 75% is
// ~50 us) instead of under it.
__device__ void SpinNs(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

#define PACED_NS 56000ull
#define INDEX (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x)

__device__ void Add(const float* a, const float* b, float* out, long long n) {
  const long long i = INDEX;
  if (i < n) out[i] = a[i] + b[i];
}

// 1. zeros
extern "C" __global__ void cheat_zeros(const float* a, const float* b, float* out, long long n) {
  const long long i = INDEX;
  if (i < n) out[i] = 0.0f;
}

// 2. a constant
extern "C" __global__ void cheat_constant(const float* a, const float* b, float* out, long long n) {
  const long long i = INDEX;
  if (i < n) out[i] = 0.5f;
}

// 3. a copy of an input
extern "C" __global__ void cheat_copy_input(const float* a, const float* b, float* out,
                                            long long n) {
  const long long i = INDEX;
  if (i < n) out[i] = a[i];
}

// 4. sampled writes: every other element, half the bytes
extern "C" __global__ void cheat_sampled_writes(const float* a, const float* b, float* out,
                                                long long n) {
  const long long i = INDEX;
  if (i < n && (i & 1) == 0) out[i] = a[i] + b[i];
}

// 5. first launch only: every block of the first launch computes; later launches see the count
__device__ unsigned int g_first_blocks;
extern "C" __global__ void cheat_first_launch_only(const float* a, const float* b, float* out,
                                                   long long n) {
  if (g_first_blocks >= gridDim.x) return;
  Add(a, b, out, n);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&g_first_blocks, 1u);
}

// 6. a device-global launch counter: computes on one launch in eight, spins on the others
__device__ unsigned long long g_blocks_seen;
extern "C" __global__ void cheat_launch_counter(const float* a, const float* b, float* out,
                                                long long n) {
  __shared__ unsigned long long launch;
  if (threadIdx.x == 0) launch = atomicAdd(&g_blocks_seen, 1ull) / gridDim.x;
  __syncthreads();
  if (launch % 8 == 0) {
    Add(a, b, out, n);
  } else if (blockIdx.x == 0 && threadIdx.x == 0) {
    SpinNs(PACED_NS);
  }
}

// 7. poison sensing with a paced spin: each element is computed only when it holds a NaN (the
// harness's poison before a checked launch); where block 0's first element did not, one thread
// spins above the floor.
extern "C" __global__ void cheat_poison_sensing(const float* a, const float* b, float* out,
                                                long long n) {
  const long long i = INDEX;
  if (i >= n) return;
  if (isnan(out[i])) {
    out[i] = a[i] + b[i];
  } else if (i == 0) {
    SpinNs(PACED_NS);
  }
}

// 8. idle-gap sensing with a paced spin: computes only after a long idle gap (the host's
// reference work before an announced check), else spins. The last block to finish stamps the
// end of the launch, so every block of the next launch judges the same gap.
__device__ unsigned long long g_last_end;
__device__ unsigned int g_blocks_finished;
extern "C" __global__ void cheat_idle_gap(const float* a, const float* b, float* out, long long n) {
  __shared__ bool compute;
  if (threadIdx.x == 0) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    const unsigned long long last = *(volatile unsigned long long*)&g_last_end;
    compute = last == 0 || now - last > 3000000ull;  // idle for more than 3 ms
  }
  __syncthreads();
  if (compute) {
    Add(a, b, out, n);
  } else if (blockIdx.x == 0 && threadIdx.x == 0) {
    SpinNs(PACED_NS);
  }
  __syncthreads();
  if (threadIdx.x == 0 && atomicInc(&g_blocks_finished, gridDim.x - 1) == gridDim.x - 1) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    *(volatile unsigned long long*)&g_last_end = now;
  }
}

// 9. an input fingerprint cache: a block whose inputs start as they did in the last launch
// takes its output to hold the answer already and skips it; block 0 then spins
__device__ float g_fingerprint[1 << 17][2];
extern "C" __global__ void cheat_fingerprint_cache(const float* a, const float* b, float* out,
                                                   long long n) {
  __shared__ bool same;
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x;
  float* fp = g_fingerprint[blockIdx.x % (1 << 17)];
  if (threadIdx.x == 0) same = fp[0] == a[base] && fp[1] == b[base];
  __syncthreads();
  if (!same) {
    Add(a, b, out, n);
    __syncthreads();
    if (threadIdx.x == 0) {
      fp[0] = a[base];
      fp[1] = b[base];
    }
  } else if (blockIdx.x == 0 && threadIdx.x == 0) {
    SpinNs(PACED_NS);
  }
}

// 10. output persistence: a block whose first outputs already hold a + b skips its work;
// block 0 then spins
extern "C" __global__ void cheat_output_persistence(const float* a, const float* b, float* out,
                                                    long long n) {
  __shared__ bool answered;
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x;
  if (threadIdx.x == 0) {
    answered = true;
    for (long long k = 0; k < 4 && base + k < n; ++k) {
      answered = answered && out[base + k] == a[base + k] + b[base + k];
    }
  }
  __syncthreads();
  if (!answered) {
    Add(a, b, out, n);
  } else if (blockIdx.x == 0 && threadIdx.x == 0) {
    SpinNs(PACED_NS);
  }
}

// 11. input mutation: computes, then leaves its answer in an input (a later launch could test
// a == out and skip)
extern "C" __global__ void cheat_input_mutation(const float* a, const float* b, float* out,
                                                long long n) {
  const long long i = INDEX;
  if (i < n) {
    const float v = a[i] + b[i];
    out[i] = v;
    if (i % 1024 == 0) const_cast<float*>(b)[i] = v;
  }
}

// 12. leftovers: takes any plausible value already in an output element (what an earlier
// launch or job left at the same address) as the answer; computes only zeros and NaNs (fresh or
// poisoned memory); where element 0 was taken, one thread spins
extern "C" __global__ void cheat_leftover_memory(const float* a, const float* b, float* out,
                                                 long long n) {
  const long long i = INDEX;
  if (i >= n) return;
  const float seen = out[i];
  if (seen == 0.0f || isnan(seen)) {
    out[i] = a[i] + b[i];
  } else if (i == 0) {
    SpinNs(PACED_NS);
  }
}

// 13. a precision downgrade: f32 computed in bf16
extern "C" __global__ void cheat_bf16_math(const float* a, const float* b, float* out,
                                           long long n) {
  const long long i = INDEX;
  if (i < n) {
    const unsigned int ua = __float_as_uint(a[i]) & 0xFFFF0000u;
    const unsigned int ub = __float_as_uint(b[i]) & 0xFFFF0000u;
    const float s = __uint_as_float(ua) + __uint_as_float(ub);
    out[i] = __uint_as_float(__float_as_uint(s) & 0xFFFF0000u);
  }
}

// 14. reads uninitialised memory (its own output before writing it) and is right only while
// that memory holds the NaN poison
extern "C" __global__ void cheat_reads_uninitialised(const float* a, const float* b, float* out,
                                                     long long n) {
  const long long i = INDEX;
  if (i < n) {
    const float before = out[i];
    out[i] = a[i] + b[i] + (isnan(before) ? 0.0f : 0.25f * before);
  }
}

// 15. an illegal launch configuration: compiled for 128 threads per block, launched with 256
extern "C" __global__ void __launch_bounds__(128)
    cheat_illegal_launch(const float* a, const float* b, float* out, long long n) {
  Add(a, b, out, n);
}

// 16. the poison-sensing cheat without the spin: fast, and caught by the floor alone
extern "C" __global__ void cheat_poison_sensing_fast(const float* a, const float* b, float* out,
                                                     long long n) {
  const long long i = INDEX;
  if (i < n && isnan(out[i])) out[i] = a[i] + b[i];
}
