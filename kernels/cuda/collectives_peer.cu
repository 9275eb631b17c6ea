// kbench's own all-reduce variants: one-shot and two-shot over peer pointers (the design of
// TensorRT-LLM's custom all-reduce, cpp/tensorrt_llm/kernels/customAllReduceKernels.cu: block b
// of every rank meets block b of every other rank at a barrier of flags in peer-visible memory,
// then reads the peers' buffers directly over NVLink), and the floor that stages every input
// through pinned host memory. Every rank adds the ranks' values in rank order 0..n-1 in float32,
// so every rank's output is bit-identical.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/collectives.h"
#include "kernels/cuda/common.cuh"

namespace kbench::kernels::cuda {
namespace {

constexpr int kThreads = 512;
constexpr uint64_t kBarrierTimeoutNs = static_cast<uint64_t>(kBarrierTimeoutSeconds * 1e9);

__device__ __forceinline__ uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void StoreReleaseSystem(uint32_t* p, uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ uint32_t LoadAcquireSystem(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Block b of this rank meets block b of every rank: thread t < world writes `value` into rank
// t's slot (b, rank) and waits for this rank's slot (b, t) to reach it. The block's earlier
// writes are visible to the peers' blocks once they pass (fence, then release); a peer that
// never arrives traps the kernel after kBarrierTimeoutNs instead of hanging the device.
__device__ void BarrierWithPeers(const PeerPointers& peers, int rank, int world, uint32_t value) {
  __syncthreads();
  if (threadIdx.x < world) {
    __threadfence_system();
    StoreReleaseSystem(peers.flags[threadIdx.x] + blockIdx.x * kMaxWorldSize + rank, value);
    const uint32_t* mine = peers.flags[rank] + blockIdx.x * kMaxWorldSize + threadIdx.x;
    const uint64_t start = GlobalTimerNs();
    // Flags only grow (modulo 2^32): a peer already at a later barrier also satisfies this one.
    while (static_cast<int32_t>(LoadAcquireSystem(mine) - value) < 0) {
      if (GlobalTimerNs() - start > kBarrierTimeoutNs) __trap();
    }
  }
  __syncthreads();
}

// 16 bytes of T: the unit of the vector paths (every buffer is cudaMalloc'd, 256-byte aligned,
// and chunk boundaries are multiples of it).
template <typename T>
struct Pack {
  static constexpr int kElements = 16 / static_cast<int>(sizeof(T));
  uint4 raw;
};

template <typename T>
__device__ __forceinline__ void Accumulate(float (&acc)[Pack<T>::kElements], uint4 raw) {
  const T* v = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int e = 0; e < Pack<T>::kElements; ++e) acc[e] += ToFloat(v[e]);
}

template <typename T>
__device__ __forceinline__ uint4 Round(const float (&acc)[Pack<T>::kElements]) {
  uint4 raw;
  T* v = reinterpret_cast<T*>(&raw);
#pragma unroll
  for (int e = 0; e < Pack<T>::kElements; ++e) v[e] = FromFloat<T>(acc[e]);
  return raw;
}

// Calls pack(k) for every whole 16-byte pack k of [begin, end) and element(i) for the tail, the
// same thread for the same offset from `begin` in every launch and on every rank: the two-shot
// kernel's second phase reads on a peer exactly what that peer's same block wrote.
template <typename T, typename PackFn, typename ElementFn>
__device__ __forceinline__ void ForRange(int64_t begin, int64_t end, PackFn pack,
                                         ElementFn element) {
  constexpr int kE = Pack<T>::kElements;
  const int64_t packs = (end - begin) / kE;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t k = first; k < packs; k += stride) pack(begin + k * kE);
  for (int64_t i = begin + packs * kE + first; i < end; i += stride) element(i);
}

// This rank's recv[begin, end) = the sum over ranks of send[begin, end), in rank order.
template <typename T>
__device__ void SumRanks(const PeerPointers& peers, int rank, int world, int64_t begin,
                         int64_t end) {
  T* out = static_cast<T*>(peers.recv[rank]);
  ForRange<T>(
      begin, end,
      [&](int64_t i) {
        float acc[Pack<T>::kElements] = {};
        for (int s = 0; s < world; ++s) {
          Accumulate<T>(
              acc,
              __ldcg(reinterpret_cast<const uint4*>(static_cast<const T*>(peers.send[s]) + i)));
        }
        *reinterpret_cast<uint4*>(out + i) = Round<T>(acc);
      },
      [&](int64_t i) {
        float acc = 0;
        for (int s = 0; s < world; ++s) acc += ToFloat(static_cast<const T*>(peers.send[s])[i]);
        out[i] = FromFloat<T>(acc);
      });
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    OneShotAllReduceKernel(PeerPointers peers, int rank, int world, int64_t count,
                           uint32_t barrier) {
  // Every rank's input is ready once its kernel has started (stream order on its device).
  BarrierWithPeers(peers, rank, world, barrier);
  SumRanks<T>(peers, rank, world, 0, count);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    TwoShotAllReduceKernel(PeerPointers peers, int rank, int world, int64_t count, int64_t chunk,
                           uint32_t barrier) {
  BarrierWithPeers(peers, rank, world, barrier);
  // Reduce-scatter: chunk `rank` of the sum, into this rank's own output.
  const int64_t mine = rank * chunk;
  SumRanks<T>(peers, rank, world, min(mine, count), min(mine + chunk, count));
  BarrierWithPeers(peers, rank, world, barrier + 1);
  // All-gather: every other chunk from the rank that summed it.
  T* out = static_cast<T*>(peers.recv[rank]);
  for (int s = 0; s < world; ++s) {
    if (s == rank) continue;
    const T* theirs = static_cast<const T*>(peers.recv[s]);
    ForRange<T>(
        min(s * chunk, count), min(s * chunk + chunk, count),
        [&](int64_t i) {
          *reinterpret_cast<uint4*>(out + i) = __ldcg(reinterpret_cast<const uint4*>(theirs + i));
        },
        [&](int64_t i) { out[i] = __ldcg(theirs + i); });
  }
}

// host_staged's reduction: recv = the sum over s of staged[s * count + i], in rank order.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    SumStagedKernel(const T* __restrict__ staged, int world, int64_t count, T* __restrict__ recv) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    float acc = 0;
    for (int s = 0; s < world; ++s) acc += ToFloat(staged[s * count + i]);
    recv[i] = FromFloat<T>(acc);
  }
}

// Blocks for `elements` of work per rank: one pack per thread, at most kMaxCollectiveBlocks
// (each block holds a barrier slot on every rank), at least one.
template <typename T>
int PeerBlocks(int64_t elements) {
  const int64_t packs = CeilDiv(elements, Pack<T>::kElements);
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(kMaxCollectiveBlocks, CeilDiv(packs, kThreads))));
}

absl::Status CheckPeerGang(const GangLaunch& gang) {
  if (gang.world_size() < kMinWorldSize || gang.world_size() > kMaxWorldSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a peer-access collective needs 2 to ", kMaxWorldSize, " ranks, got ", gang.world_size()));
  }
  for (int r = 0; r < gang.world_size(); ++r) {
    if (gang.peers.send[r] == nullptr || gang.peers.recv[r] == nullptr ||
        gang.peers.flags[r] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("rank ", r, " (device ", gang.ranks[r].device,
                                                     ") has no peer buffers or barrier flags"));
    }
  }
  if (gang.epoch == nullptr) return absl::InvalidArgumentError("peer-access gang without epoch");
  return absl::OkStatus();
}

// Launches `kernel` on every rank with the rank's index as its argument, naming the rank and
// device when a launch fails.
template <typename LaunchOne>
absl::Status OnEveryRank(const GangLaunch& gang, const char* kernel, LaunchOne launch_one) {
  for (int r = 0; r < gang.world_size(); ++r) {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(gang.ranks[r].device));
    launch_one(r);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
      return CudaStatus(
          err,
          absl::StrCat("launch of ", kernel, " on rank ", r, " (cuda:", gang.ranks[r].device, ")")
              .c_str(),
          __FILE__, __LINE__);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LaunchOneShotAllReduce(const Problem& problem, const GangLaunch& gang) {
  KBENCH_RETURN_IF_ERROR(CheckPeerGang(gang));
  const int64_t count = problem.dim(0);
  const uint32_t barrier = ++*gang.epoch;
  return DispatchFloat(problem.dtype, [&](auto t) {
    using T = decltype(t);
    const int blocks = PeerBlocks<T>(count);
    return OnEveryRank(gang, "OneShotAllReduceKernel", [&](int r) {
      OneShotAllReduceKernel<T><<<blocks, kThreads, 0, gang.ranks[r].stream>>>(
          gang.peers, r, gang.world_size(), count, barrier);
    });
  });
}

absl::Status LaunchTwoShotAllReduce(const Problem& problem, const GangLaunch& gang) {
  KBENCH_RETURN_IF_ERROR(CheckPeerGang(gang));
  const int64_t count = problem.dim(0);
  const uint32_t barrier = *gang.epoch + 1;
  *gang.epoch += 2;
  return DispatchFloat(problem.dtype, [&](auto t) {
    using T = decltype(t);
    // Chunks of whole packs, so every chunk but the last starts 16-byte aligned.
    const int64_t chunk =
        CeilDiv(CeilDiv(count, gang.world_size()), Pack<T>::kElements) * Pack<T>::kElements;
    const int blocks = PeerBlocks<T>(chunk);
    return OnEveryRank(gang, "TwoShotAllReduceKernel", [&](int r) {
      TwoShotAllReduceKernel<T><<<blocks, kThreads, 0, gang.ranks[r].stream>>>(
          gang.peers, r, gang.world_size(), count, chunk, barrier);
    });
  });
}

absl::Status LaunchHostStagedAllReduce(const Problem& problem, const GangLaunch& gang) {
  const int world = gang.world_size();
  const int64_t count = problem.dim(0);
  const size_t bytes = static_cast<size_t>(count) * StorageBytes(problem.dtype);
  char* host = static_cast<char*>(gang.host_staging);
  if (host == nullptr) return absl::InvalidArgumentError("host_staged: no host staging buffer");
  // Up: every rank's input into its slot of the host buffer, once every rank has read the
  // previous call's inputs out of it.
  for (int r = 0; r < world; ++r) {
    const RankLaunch& rank = gang.ranks[r];
    KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(rank.device));
    for (int s = 0; s < world; ++s) {
      KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(rank.stream, gang.ranks[s].consumed, 0));
    }
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host + r * bytes, gang.peers.send[r], bytes,
                                                cudaMemcpyDeviceToHost, rank.stream));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(rank.staged, rank.stream));
  }
  // Down: every input to every rank, then the sum on each rank's device.
  return DispatchFloat(problem.dtype, [&](auto t) -> absl::Status {
    using T = decltype(t);
    for (int r = 0; r < world; ++r) {
      const RankLaunch& rank = gang.ranks[r];
      if (rank.staging == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("host_staged: rank ", r, " has no staging"));
      }
      KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(rank.device));
      for (int s = 0; s < world; ++s) {
        KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(rank.stream, gang.ranks[s].staged, 0));
      }
      KBENCH_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(rank.staging, host, world * bytes, cudaMemcpyHostToDevice, rank.stream));
      KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(rank.consumed, rank.stream));
      const int blocks = static_cast<int>(std::min<int64_t>(CeilDiv(count, kThreads), 1024));
      SumStagedKernel<T><<<blocks, kThreads, 0, rank.stream>>>(
          static_cast<const T*>(rank.staging), world, count, static_cast<T*>(gang.peers.recv[r]));
      KBENCH_CUDA_CHECK_LAUNCH("SumStagedKernel");
    }
    return absl::OkStatus();
  });
}

}  // namespace kbench::kernels::cuda
