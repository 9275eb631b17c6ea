// A collective variant's per-rank buffers and their contents.
#include "server/executor/cuda/collective_buffers.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/ops/collectives.h"
#include "server/executor/cuda/tensor_init.h"

namespace kbench::executor::cuda {
namespace {

// Inputs in [-1, 1): sums over 8 ranks stay far from any dtype's range.
constexpr float kInputScale = 1.0f;

absl::Status OnDevice(cudaError_t err, const char* call, const std::string& device) {
  if (err == cudaSuccess) return absl::OkStatus();
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return absl::ResourceExhaustedError(absl::StrCat(call, " on ", device, ": out of memory"));
  }
  return kernels::cuda::CudaStatus(err, absl::StrCat(call, " on ", device).c_str(), __FILE__,
                                   __LINE__);
}

}  // namespace

CollectiveBuffers::CollectiveBuffers(DeviceGang& gang, const kernels::Problem& problem)
    : gang_(gang),
      problem_(problem),
      tensors_(kernels::FindCollective(problem.op)->tensors(problem.dim(0), gang.world_size())),
      ranks_(gang.world_size()) {}

absl::StatusOr<std::unique_ptr<CollectiveBuffers>> CollectiveBuffers::Allocate(
    DeviceGang& gang, const kernels::Problem& problem,
    const kernels::cuda::CollectiveVariant& variant) {
  if (kernels::FindCollective(problem.op) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("kernel: ", problem.op, " is no collective"));
  }
  if (variant.needs_nccl) KBENCH_RETURN_IF_ERROR(gang.EnsureNccl());
  if (variant.needs_peer_access) KBENCH_RETURN_IF_ERROR(gang.RequirePeerAccess());
  std::unique_ptr<CollectiveBuffers> b(new CollectiveBuffers(gang, problem));
  if (const int64_t bytes = kernels::StagingBytes(problem, gang.world_size()); bytes > 0) {
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaHostAlloc(&b->host_staging_, bytes, cudaHostAllocPortable),
                                    "cudaHostAlloc (host staging)", "the host"));
  }
  for (int r = 0; r < gang.world_size(); ++r) KBENCH_RETURN_IF_ERROR(b->AllocateRank(r, variant));
  if (variant.needs_peer_access) KBENCH_RETURN_IF_ERROR(b->CopyPeerTables());
  b->launch_.host_staging = b->host_staging_;
  b->launch_.epoch = &b->epoch_;
  return b;
}

absl::Status CollectiveBuffers::AllocateRank(int r,
                                             const kernels::cuda::CollectiveVariant& variant) {
  const std::string& device = gang_.name(r);
  const size_t element = kernels::StorageBytes(problem_.dtype);
  RankMemory& m = ranks_[r];
  KBENCH_RETURN_IF_ERROR(OnDevice(cudaSetDevice(gang_.ordinal(r)), "cudaSetDevice", device));
  KBENCH_RETURN_IF_ERROR(
      OnDevice(cudaMalloc(&m.send, tensors_.send_elements * element), "cudaMalloc (send)", device));
  KBENCH_RETURN_IF_ERROR(
      OnDevice(cudaMalloc(&m.recv, tensors_.recv_elements * element), "cudaMalloc (recv)", device));
  if (variant.needs_peer_access) {
    const size_t bytes = kernels::cuda::kBarrierFlagWords * sizeof(uint32_t);
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaMalloc(reinterpret_cast<void**>(&m.flags), bytes),
                                    "cudaMalloc (flags)", device));
    // Zeroed once: barrier values start at 1 and only grow (kernels/cuda/collectives.h).
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaMemset(m.flags, 0, bytes), "cudaMemset (flags)", device));
    // cudaMemset may return before the device wrote, and the gang's streams do not wait for the
    // default stream: the zeros must land before any rank's first barrier reads or writes them.
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaDeviceSynchronize(), "cudaDeviceSynchronize (flags zeroed)", device));
  }
  if (const int64_t staging = kernels::StagingBytes(problem_, gang_.world_size()); staging > 0) {
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaMalloc(&m.staging, staging), "cudaMalloc (staging)", device));
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaEventCreateWithFlags(&m.staged, cudaEventDisableTiming),
                                    "cudaEventCreate", device));
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaEventCreateWithFlags(&m.consumed, cudaEventDisableTiming),
                                    "cudaEventCreate", device));
  }
  kernels::cuda::RankLaunch& rank = launch_.ranks.emplace_back();
  rank.device = gang_.ordinal(r);
  rank.stream = gang_.stream(r);
  rank.nccl_comm = gang_.nccl_comm(r);
  rank.staging = m.staging;
  rank.staged = m.staged;
  rank.consumed = m.consumed;
  launch_.peers.send[r] = m.send;
  launch_.peers.recv[r] = m.recv;
  launch_.peers.flags[r] = m.flags;
  return absl::OkStatus();
}

absl::Status CollectiveBuffers::CopyPeerTables() {
  const int world = gang_.world_size();
  // send, recv and flags, kMaxWorldSize pointers each (the first world_size of them used).
  constexpr size_t kTable = kernels::kMaxWorldSize * sizeof(void*);
  for (int r = 0; r < world; ++r) {
    const std::string& device = gang_.name(r);
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaSetDevice(gang_.ordinal(r)), "cudaSetDevice", device));
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaMalloc(&ranks_[r].peer_tables, 3 * kTable),
                                    "cudaMalloc (peer tables)", device));
    char* tables = static_cast<char*>(ranks_[r].peer_tables);
    const kernels::cuda::PeerPointers& peers = launch_.peers;
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaMemcpy(tables, peers.send, kTable, cudaMemcpyHostToDevice),
                                    "cudaMemcpy (peer tables)", device));
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaMemcpy(tables + kTable, peers.recv, kTable, cudaMemcpyHostToDevice),
                 "cudaMemcpy (peer tables)", device));
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaMemcpy(tables + 2 * kTable, peers.flags, kTable, cudaMemcpyHostToDevice),
                 "cudaMemcpy (peer tables)", device));
    // Pageable copies may still be in flight when cudaMemcpy returns, unordered with the gang's
    // streams: the tables must be in place before a kernel reads them.
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaDeviceSynchronize(), "cudaDeviceSynchronize (peer tables)", device));
    kernels::cuda::RankLaunch& rank = launch_.ranks[r];
    rank.peer_send_table = reinterpret_cast<const void* const*>(tables);
    rank.peer_recv_table = reinterpret_cast<void* const*>(tables + kTable);
    rank.peer_flags_table = reinterpret_cast<uint32_t* const*>(tables + 2 * kTable);
  }
  return absl::OkStatus();
}

CollectiveBuffers::~CollectiveBuffers() {
  for (size_t r = 0; r < ranks_.size(); ++r) {
    RankMemory& m = ranks_[r];
    cudaSetDevice(gang_.ordinal(static_cast<int>(r)));
    for (void* p : {m.send, m.recv, static_cast<void*>(m.flags), m.staging, m.peer_tables}) {
      if (p != nullptr) cudaFree(p);
    }
    for (cudaEvent_t e : {m.staged, m.consumed}) {
      if (e != nullptr) cudaEventDestroy(e);
    }
  }
  if (host_staging_ != nullptr) cudaFreeHost(host_staging_);
}

absl::Status CollectiveBuffers::FillInputsAndPoison(uint64_t seed) {
  for (int r = 0; r < gang_.world_size(); ++r) {
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaSetDevice(gang_.ordinal(r)), "cudaSetDevice", gang_.name(r)));
    KBENCH_RETURN_IF_ERROR(FillUniform(ranks_[r].send, tensors_.send_elements, problem_.dtype,
                                       kernels::RankSeed(seed, r), 0, kInputScale,
                                       gang_.stream(r)));
    KBENCH_RETURN_IF_ERROR(
        FillPoison(ranks_[r].recv, tensors_.recv_elements, problem_.dtype, gang_.stream(r)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<double>>> CollectiveBuffers::ReadSends() const {
  return Read(false, nullptr);
}

absl::StatusOr<std::vector<std::vector<double>>> CollectiveBuffers::ReadRecvs(
    std::vector<int64_t>* unwritten) const {
  return Read(true, unwritten);
}

absl::StatusOr<std::vector<std::vector<double>>> CollectiveBuffers::Read(
    bool recv, std::vector<int64_t>* unwritten) const {
  const int64_t elements = recv ? tensors_.recv_elements : tensors_.send_elements;
  const size_t bytes = elements * kernels::StorageBytes(problem_.dtype);
  std::vector<std::vector<double>> out(ranks_.size());
  std::vector<char> raw(bytes);
  if (unwritten != nullptr) unwritten->assign(ranks_.size(), 0);
  for (size_t r = 0; r < ranks_.size(); ++r) {
    const int rank = static_cast<int>(r);
    KBENCH_RETURN_IF_ERROR(
        OnDevice(cudaSetDevice(gang_.ordinal(rank)), "cudaSetDevice", gang_.name(rank)));
    KBENCH_RETURN_IF_ERROR(OnDevice(cudaMemcpy(raw.data(), recv ? ranks_[r].recv : ranks_[r].send,
                                               bytes, cudaMemcpyDeviceToHost),
                                    "cudaMemcpy (read back)", gang_.name(rank)));
    out[r].reserve(elements);
    const int64_t poisoned = ConvertToDouble(raw.data(), elements, problem_.dtype, &out[r]);
    if (unwritten != nullptr) (*unwritten)[r] = poisoned;
  }
  return out;
}

}  // namespace kbench::executor::cuda
