// A multi-GPU job's devices: streams, gates, peer access, NCCL communicators, and waits that a
// hung rank cannot block.
#include "server/executor/cuda/gang.h"

#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/cuda/nccl_status.h"
#include "server/common/device_id.h"
#include "server/executor/backend.h"

namespace kbench::executor {
namespace {

// kbench-executor's --allow-nvls (off by default).
bool nvls_allowed = false;

// Between two polls of a busy stream: short against a collective's microseconds is not needed
// (the events time the device, not this loop), long enough not to spin a host core flat out.
constexpr auto kPollInterval = std::chrono::microseconds(50);

// NVLink multicast (NVLS) makes NCCL map multicast objects that span the devices (and, on a
// shared host, fabric memory other jobs may hold): it stays off unless the operator allowed it.
// Set before every communicator's creation, overwriting what the environment said.
void ConfigureNcclEnvironment() {
  if (!nvls_allowed) setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/1);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void ConfigureCollectives(const CollectiveOptions& options) {
  nvls_allowed = options.allow_nvls;
  // At start too, before anything in the process can reach NCCL (it reads its environment once).
  ConfigureNcclEnvironment();
}

namespace cuda {
namespace {

absl::Status CudaCall(cudaError_t err, const char* call, const std::string& device) {
  if (err == cudaSuccess) return absl::OkStatus();
  return kernels::cuda::CudaStatus(err, absl::StrCat(call, " on ", device).c_str(), __FILE__,
                                   __LINE__);
}

}  // namespace

absl::StatusOr<std::unique_ptr<DeviceGang>> DeviceGang::Open(
    const std::vector<std::string>& devices) {
  std::unique_ptr<DeviceGang> gang(new DeviceGang());
  for (const std::string& device : devices) {
    KBENCH_RETURN_IF_ERROR(gang->OpenRank(device, &gang->ranks_.emplace_back()));
  }
  KBENCH_RETURN_IF_ERROR(gang->EnablePeerAccess());
  return gang;
}

absl::Status DeviceGang::OpenRank(const std::string& device, Rank* rank) {
  KBENCH_ASSIGN_OR_RETURN(const DeviceId id, ParseDeviceId(device));
  if (id.kind != DeviceId::Kind::kCuda) {
    return absl::InvalidArgumentError(
        absl::StrCat("devices: ", device, " is not a CUDA device (cuda:N)"));
  }
  int count = 0;
  KBENCH_RETURN_IF_ERROR(CudaCall(cudaGetDeviceCount(&count), "cudaGetDeviceCount", device));
  if (id.ordinal < 0 || id.ordinal >= count) {
    return absl::InvalidArgumentError(absl::StrCat("devices: ", device, " is not one of the ",
                                                   count, " CUDA devices of this executor"));
  }
  for (const Rank& other : ranks_) {
    if (&other != rank && other.ordinal == id.ordinal) {
      return absl::InvalidArgumentError(absl::StrCat("devices: ", device, " is listed twice"));
    }
  }
  rank->name = device;
  rank->ordinal = id.ordinal;
  KBENCH_RETURN_IF_ERROR(CudaCall(cudaSetDevice(rank->ordinal), "cudaSetDevice", device));
  int major = 0, minor = 0;
  KBENCH_RETURN_IF_ERROR(
      CudaCall(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, rank->ordinal),
               "cudaDeviceGetAttribute", device));
  KBENCH_RETURN_IF_ERROR(
      CudaCall(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, rank->ordinal),
               "cudaDeviceGetAttribute", device));
  rank->compute_capability = major * 10 + minor;
  KBENCH_RETURN_IF_ERROR(CudaCall(cudaStreamCreateWithFlags(&rank->stream, cudaStreamNonBlocking),
                                  "cudaStreamCreateWithFlags", device));
  rank->gate = std::make_unique<BlockingKernel>();
  return rank->gate->Init();
}

absl::Status DeviceGang::EnablePeerAccess() {
  for (const Rank& from : ranks_) {
    KBENCH_RETURN_IF_ERROR(CudaCall(cudaSetDevice(from.ordinal), "cudaSetDevice", from.name));
    for (const Rank& to : ranks_) {
      if (to.ordinal == from.ordinal) continue;
      int can = 0;
      KBENCH_RETURN_IF_ERROR(CudaCall(cudaDeviceCanAccessPeer(&can, from.ordinal, to.ordinal),
                                      "cudaDeviceCanAccessPeer", from.name));
      if (!can) {
        if (peer_access_.ok()) {
          peer_access_ = absl::FailedPreconditionError(
              absl::StrCat("devices: ", from.name, " cannot access ", to.name,
                           "'s memory (no peer access between them): the peer-access variants "
                           "need it between every pair"));
        }
        continue;
      }
      const cudaError_t err = cudaDeviceEnablePeerAccess(to.ordinal, 0);
      // Enabled by an earlier job of this process: fine, and the error must not linger.
      if (err == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();
        continue;
      }
      KBENCH_RETURN_IF_ERROR(CudaCall(
          err, absl::StrCat("cudaDeviceEnablePeerAccess(", to.name, ")").c_str(), from.name));
    }
  }
  return absl::OkStatus();
}

DeviceGang::~DeviceGang() {
  ReleaseNccl();
  for (Rank& rank : ranks_) {
    if (rank.stream != nullptr) {
      cudaSetDevice(rank.ordinal);
      cudaStreamDestroy(rank.stream);
    }
    rank.gate.reset();
  }
  LeaveOtherDevices();
}

void DeviceGang::LeaveOtherDevices() {
  // Work left running there (a peer kernel spinning until its barrier traps) would hold the
  // reset; this process restarts after such a job anyway, which releases everything.
  if (nccl_aborted_ || ranks_.size() < 2) return;
  const int lead = ranks_.front().ordinal;
  cudaSetDevice(lead);
  for (size_t r = 1; r < ranks_.size(); ++r) cudaDeviceDisablePeerAccess(ranks_[r].ordinal);
  // This process's context on a device that is not its own would stay for the executor's life:
  // memory the device's own executor no longer has, and a foreign process on that GPU for its
  // next job's contention check (issue 13). Every device but the lead goes back as it came.
  for (size_t r = 1; r < ranks_.size(); ++r) {
    cudaSetDevice(ranks_[r].ordinal);
    cudaDeviceReset();
  }
  cudaSetDevice(lead);
  cudaGetLastError();  // a pair without peer access was never enabled: nothing to disable
}

void DeviceGang::ReleaseNccl() {
  if (nccl_aborted_ || ranks_.empty() || ranks_.front().nccl_comm == nullptr) return;
  // ncclCommFinalize is collective over the communicators: one thread finalizes all of them in
  // one group (NCCL's "Group Calls"), then each can be destroyed.
  ncclGroupStart();
  for (Rank& rank : ranks_) ncclCommFinalize(static_cast<ncclComm_t>(rank.nccl_comm));
  ncclGroupEnd();
  for (Rank& rank : ranks_) {
    ncclCommDestroy(static_cast<ncclComm_t>(rank.nccl_comm));
    rank.nccl_comm = nullptr;
  }
}

absl::Status DeviceGang::RequireSameArchitecture(int a, int b) const {
  if (ranks_[a].compute_capability == ranks_[b].compute_capability) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "devices: ", ranks_[a].name, " (sm_", ranks_[a].compute_capability, ") and ", ranks_[b].name,
      " (sm_", ranks_[b].compute_capability, ") differ: one user module cannot serve both"));
}

std::vector<std::string> DeviceGang::names() const {
  std::vector<std::string> out;
  for (const Rank& rank : ranks_) out.push_back(rank.name);
  return out;
}

absl::Status DeviceGang::EnsureNccl() {
  if (nccl_aborted_) {
    return absl::FailedPreconditionError("nccl: the gang's communicators were aborted");
  }
  if (ranks_.front().nccl_comm != nullptr) return absl::OkStatus();
  ConfigureNcclEnvironment();
  std::vector<ncclComm_t> comms(ranks_.size());
  std::vector<int> ordinals;
  for (const Rank& rank : ranks_) ordinals.push_back(rank.ordinal);
  KBENCH_RETURN_IF_ERROR(kernels::cuda::NcclStatus(
      ncclCommInitAll(comms.data(), world_size(), ordinals.data()),
      absl::StrCat("ncclCommInitAll(", absl::StrJoin(names(), ", "), ")").c_str(), -1, -1,
      nullptr));
  for (size_t r = 0; r < ranks_.size(); ++r) ranks_[r].nccl_comm = comms[r];
  return absl::OkStatus();
}

void* DeviceGang::nccl_comm(int rank) const { return ranks_[rank].nccl_comm; }

void DeviceGang::AbortNccl() {
  if (nccl_aborted_) return;
  nccl_aborted_ = true;
  for (Rank& rank : ranks_) {
    if (rank.nccl_comm == nullptr) continue;
    ncclCommAbort(static_cast<ncclComm_t>(rank.nccl_comm));
    rank.nccl_comm = nullptr;
  }
}

absl::Status DeviceGang::Synchronize(const std::atomic<bool>* cancelled, double timeout_seconds) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<bool> idle(ranks_.size(), false);
  for (;;) {
    std::vector<std::string> busy;
    for (size_t r = 0; r < ranks_.size(); ++r) {
      if (idle[r]) continue;
      const cudaError_t q = cudaStreamQuery(ranks_[r].stream);
      if (q == cudaSuccess) {
        idle[r] = true;
        continue;
      }
      if (q != cudaErrorNotReady) {
        AbortNccl();
        return CudaCall(q, "cudaStreamQuery", ranks_[r].name);
      }
      busy.push_back(ranks_[r].name);
      if (ranks_[r].nccl_comm != nullptr) {
        ncclResult_t async = ncclSuccess;
        const auto comm = static_cast<ncclComm_t>(ranks_[r].nccl_comm);
        KBENCH_RETURN_IF_ERROR(kernels::cuda::NcclStatus(ncclCommGetAsyncError(comm, &async),
                                                         "ncclCommGetAsyncError", r,
                                                         ranks_[r].ordinal, comm));
        if (async != ncclSuccess && async != ncclInProgress) {
          const absl::Status failed = kernels::cuda::NcclStatus(
              async, "NCCL (asynchronous error)", static_cast<int>(r), ranks_[r].ordinal, comm);
          AbortNccl();
          return failed;
        }
      }
    }
    if (busy.empty()) return absl::OkStatus();
    if (cancelled != nullptr && cancelled->load()) {
      AbortNccl();
      return absl::CancelledError(
          absl::StrCat("cancelled while ", absl::StrJoin(busy, ", "), " were still busy"));
    }
    if (SecondsSince(start) > timeout_seconds) {
      AbortNccl();
      return absl::DeadlineExceededError(
          absl::StrCat(absl::StrJoin(busy, ", "), " did not finish the gang's work within ",
                       timeout_seconds, " s (a rank hung or never started): NCCL aborted"));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

absl::Status DeviceGang::StickyErrors() {
  std::vector<std::string> broken;
  for (const Rank& rank : ranks_) {
    cudaSetDevice(rank.ordinal);
    cudaGetLastError();
    const cudaError_t sync = cudaDeviceSynchronize();
    if (sync != cudaSuccess)
      broken.push_back(absl::StrCat(rank.name, " (", cudaGetErrorName(sync), ")"));
  }
  if (broken.empty()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("the CUDA context of ", absl::StrJoin(broken, ", "),
                                          " is unusable in this executor"));
}

}  // namespace cuda
}  // namespace kbench::executor
