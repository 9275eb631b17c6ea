// The collectives' CUDA variants (issue 30): NCCL, kbench's one-shot and two-shot all-reduce
// over peer access (TensorRT-LLM's custom all-reduce design) and the host-staged floor. A
// launcher enqueues one call of the collective on every rank's stream and returns; the gang of
// devices, its buffers and its communicators are the executor's (server/executor/cuda/gang.h).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kernels/operation.h"
#include "kernels/ops/collectives.h"

namespace kbench::kernels::cuda {

// The peer-access kernels' grid is at most this many blocks; each block has its own barrier
// flag per rank on every rank: all of the catalogue's kPeerFlagWords.
inline constexpr int kMaxCollectiveBlocks = 32;
inline constexpr int kBarrierFlagWords = kPeerFlagWords;
static_assert(kMaxCollectiveBlocks * kMaxWorldSize == kBarrierFlagWords);
// A peer-access kernel whose peers have not reached its barrier within this time traps (a
// sticky error that names the device and restarts the executor) rather than spin forever: a
// rank that was never launched must not hang the others.
inline constexpr double kBarrierTimeoutSeconds = 10.0;

// Every rank's buffers by rank, as device pointers valid on every rank (peer access enabled
// between every pair): what the peer-access kernels and users' collective kernels receive.
struct PeerPointers {
  const void* send[kMaxWorldSize] = {};
  void* recv[kMaxWorldSize] = {};
  // kBarrierFlagWords uint32 per rank, zeroed once when allocated; never reset (see epoch).
  uint32_t* flags[kMaxWorldSize] = {};
};

// One rank of a gang.
struct RankLaunch {
  int device = 0;  // CUDA ordinal
  cudaStream_t stream = nullptr;
  // ncclComm_t of this rank (nullptr when the gang opened none).
  void* nccl_comm = nullptr;
  // host_staged: world_size * send bytes of device memory (the peers' inputs land here), and
  // two events of this rank's device that order the ranks' copies through the host buffer:
  // `staged` after this rank's input reached it, `consumed` after this rank read every input
  // out of it (the next call overwrites it only then).
  void* staging = nullptr;
  cudaEvent_t staged = nullptr;
  cudaEvent_t consumed = nullptr;
  // PeerPointers' arrays copied to this rank's device (world_size pointers each, by rank): what
  // a user's collective kernel receives as peer_send, peer_recv and peer_flags (kernels/abi.h).
  // nullptr where the variant reads no peer's memory.
  const void* const* peer_send_table = nullptr;
  void* const* peer_recv_table = nullptr;
  uint32_t* const* peer_flags_table = nullptr;
};

struct GangLaunch {
  std::vector<RankLaunch> ranks;
  PeerPointers peers;
  // host_staged: world_size * send bytes of pinned host memory.
  void* host_staging = nullptr;
  // The barrier value of the gang's last peer-access barrier: a launcher that uses barriers
  // advances it by the barriers it enqueues, the same values on every rank, so a flag written
  // for a later call never satisfies an earlier wait (flags only grow; compared modulo 2^32).
  uint32_t* epoch = nullptr;
  int world_size() const { return static_cast<int>(ranks.size()); }
};

// Enqueues one call on every rank's stream (rank 0 first), no synchronisation. Selects each
// rank's device itself; the current device afterwards is unspecified. Errors name the call,
// the rank and its device.
using CollectiveLaunchFn = absl::Status (*)(const Problem& problem, const GangLaunch& gang);

struct CollectiveVariant {
  const char* op;
  const char* variant;
  CollectiveLaunchFn launch;
  bool needs_nccl = false;
  // Reads peers' memory directly: needs peer access between every pair, and the flags. (Copies
  // through host memory need kernels::StagingBytes of staging.)
  bool needs_peer_access = false;
};

// Every collective variant, in catalogue order.
const std::vector<CollectiveVariant>& CollectiveVariants();
// nullptr when absent.
const CollectiveVariant* FindCollectiveVariant(const std::string& op, const std::string& variant);

// The launchers, by file: collectives_nccl.cc and collectives_peer.cu.
absl::Status LaunchNcclCollective(const Problem& problem, const GangLaunch& gang);
absl::Status LaunchOneShotAllReduce(const Problem& problem, const GangLaunch& gang);
absl::Status LaunchTwoShotAllReduce(const Problem& problem, const GangLaunch& gang);
absl::Status LaunchHostStagedAllReduce(const Problem& problem, const GangLaunch& gang);

}  // namespace kbench::kernels::cuda
