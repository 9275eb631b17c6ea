// The devices of one multi-GPU job (issue 30), driven by one executor process: the lead
// device's executor runs the whole gang, one stream per device, because NCCL's single-process
// mode and the peer-access kernels need every rank's buffers and streams in one address space,
// and one process is one thing to kill and restart when a rank hangs or faults.
//
// Owns per rank: the device, a stream, and a blocking kernel that holds the stream until every
// rank's work is queued; peer access between every pair; and the NCCL communicators, created on
// first use with NVLink multicast (NVLS) off unless the operator allowed it
// (ConfigureCollectives). When it goes, the other devices are left as it found them (no context
// of this process stays on them). Not thread-safe: the executor's job thread uses it.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/executor/cuda/blocking_kernel.h"

namespace kbench::executor::cuda {

class DeviceGang {
 public:
  // `devices` in rank order, lead first ("cuda:0", "cuda:1", ...). Checks that they are distinct
  // CUDA devices of this process, creates the streams and gates, and enables peer access between
  // every pair where the hardware has it (RequirePeerAccess says where it has not).
  static absl::StatusOr<std::unique_ptr<DeviceGang>> Open(const std::vector<std::string>& devices);
  ~DeviceGang();
  DeviceGang(const DeviceGang&) = delete;
  DeviceGang& operator=(const DeviceGang&) = delete;

  int world_size() const { return static_cast<int>(ranks_.size()); }
  int ordinal(int rank) const { return ranks_[rank].ordinal; }
  const std::string& name(int rank) const { return ranks_[rank].name; }
  std::vector<std::string> names() const;
  cudaStream_t stream(int rank) const { return ranks_[rank].stream; }
  BlockingKernel& gate(int rank) { return *ranks_[rank].gate; }

  // OK when every rank can read every other rank's memory; else FAILED_PRECONDITION naming the
  // first pair without peer access (NCCL still works there, through host memory).
  absl::Status RequirePeerAccess() const { return peer_access_; }
  // OK when ranks `a` and `b` have the same compute capability (one user module serves both);
  // FAILED_PRECONDITION naming both otherwise.
  absl::Status RequireSameArchitecture(int a, int b) const;

  // The NCCL communicators (ncclCommInitAll over the gang), created on the first call: a job
  // of peer-access variants never pays NCCL's start. NCCL_NVLS_ENABLE=0 is set before, unless
  // ConfigureCollectives allowed NVLS.
  absl::Status EnsureNccl();
  // Rank `rank`'s ncclComm_t; nullptr before EnsureNccl.
  void* nccl_comm(int rank) const;

  // Waits until every rank's stream is idle, polling, so that neither a hung rank nor a hung
  // NCCL call can hold the executor: on `*cancelled` (CANCELLED) or after `timeout_seconds`
  // (DEADLINE_EXCEEDED) it aborts the NCCL communicators and returns, naming the devices still
  // busy. A CUDA error names the device and the call.
  absl::Status Synchronize(const std::atomic<bool>* cancelled, double timeout_seconds);

  // Aborts every NCCL communicator (ncclCommAbort: their kernels stop and their resources go).
  void AbortNccl();
  // Whether a wait gave up on work still running (Synchronize's cancel, deadline or error): a
  // peer-access kernel may spin until its barrier traps, NCCL was aborted.
  bool abandoned_work() const { return nccl_aborted_; }

  // After a failed job: synchronises every device; a sticky error (the CUDA context unusable) is
  // said in the returned status, naming the device. OK when every device is healthy.
  absl::Status StickyErrors();

 private:
  struct Rank {
    std::string name;
    int ordinal = 0;
    int compute_capability = 0;  // major * 10 + minor
    cudaStream_t stream = nullptr;
    std::unique_ptr<BlockingKernel> gate;
    void* nccl_comm = nullptr;
  };
  DeviceGang() = default;
  absl::Status OpenRank(const std::string& device, Rank* rank);
  absl::Status EnablePeerAccess();
  // Finalizes and destroys the communicators of a gang whose work finished (AbortNccl's the
  // others).
  void ReleaseNccl();
  // Ends this process's presence on every device but the lead's (peer access off, their
  // contexts reset), so that a gang leaves nothing on devices other executors own.
  void LeaveOtherDevices();

  std::vector<Rank> ranks_;
  absl::Status peer_access_;
  bool nccl_aborted_ = false;
};

}  // namespace kbench::executor::cuda
