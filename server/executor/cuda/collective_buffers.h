// One collective variant's buffers on every rank of a gang: the send and recv tensors, the
// peer-access kernels' barrier flags and host_staged's staging, as the GangLaunch its launcher
// takes; and the contents the protocol needs: fresh seeded inputs per rank, poisoned outputs,
// every rank's tensors read back as float64.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/cuda/collectives.h"
#include "kernels/operation.h"
#include "server/executor/cuda/gang.h"

namespace kbench::executor::cuda {

class CollectiveBuffers {
 public:
  // Allocates on every rank what `variant` needs for `problem` at the gang's world size, and
  // opens the gang's NCCL communicators first when the variant calls NCCL.
  // RESOURCE_EXHAUSTED naming the device when one runs out of memory.
  static absl::StatusOr<std::unique_ptr<CollectiveBuffers>> Allocate(
      DeviceGang& gang, const kernels::Problem& problem,
      const kernels::cuda::CollectiveVariant& variant);
  ~CollectiveBuffers();
  CollectiveBuffers(const CollectiveBuffers&) = delete;
  CollectiveBuffers& operator=(const CollectiveBuffers&) = delete;

  // What the launcher takes; valid while this object lives.
  const kernels::cuda::GangLaunch& launch() const { return launch_; }

  // Rank r's send = UniformAt(RankSeed(seed, r), 0, i, 1) in the dtype; every recv poisoned.
  // Asynchronous, on each rank's stream.
  absl::Status FillInputsAndPoison(uint64_t seed);

  // Every rank's send (or recv) as float64, by rank. Synchronous: call once the gang is idle.
  // `unwritten`, when given, gets per rank the recv elements still holding the poison.
  absl::StatusOr<std::vector<std::vector<double>>> ReadSends() const;
  absl::StatusOr<std::vector<std::vector<double>>> ReadRecvs(std::vector<int64_t>* unwritten) const;

 private:
  struct RankMemory {
    void* send = nullptr;
    void* recv = nullptr;
    uint32_t* flags = nullptr;
    void* staging = nullptr;
    cudaEvent_t staged = nullptr;
    cudaEvent_t consumed = nullptr;
    // kernels::cuda::PeerPointers' send, recv and flags arrays on this rank's device.
    void* peer_tables = nullptr;
  };
  CollectiveBuffers(DeviceGang& gang, const kernels::Problem& problem);
  absl::Status AllocateRank(int r, const kernels::cuda::CollectiveVariant& variant);
  // Once every rank's buffers exist: their pointers by rank, on every rank's device.
  absl::Status CopyPeerTables();
  absl::StatusOr<std::vector<std::vector<double>>> Read(bool recv,
                                                        std::vector<int64_t>* unwritten) const;

  DeviceGang& gang_;
  const kernels::Problem problem_;
  kernels::RankTensors tensors_;
  std::vector<RankMemory> ranks_;
  void* host_staging_ = nullptr;
  uint32_t epoch_ = 0;
  kernels::cuda::GangLaunch launch_;
};

}  // namespace kbench::executor::cuda
