// The collectives of issue 30 (all_reduce, all_gather, reduce_scatter, broadcast, all_to_all,
// p2p): what a rank holds at a given world size, the float64 reference of each rank's output and
// nccl-tests' byte model. Plain C++: the control plane validates and prices them without CUDA.
//
// The catalogue's Operation entries of the collectives (MakeCollectiveOps) describe one rank at
// the smallest world, min_devices = 2 ranks; everything that depends on the job's real world size
// (its gang of devices) goes through the functions below, which take it explicitly.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kernels/operation.h"

namespace kbench::kernels {

// The most ranks a collective job holds: one host's NVLink domain (an HGX board has 8 GPUs). The
// peer-access variants pass one pointer per rank by value in their kernel arguments.
inline constexpr int kMaxWorldSize = 8;
inline constexpr int kMinWorldSize = 2;
// Words (uint32) of barrier flags each rank holds in peer-visible device memory, zeroed before
// the job's first call: the peer-access variants' (and users' collective kernels') barriers.
inline constexpr int kPeerFlagWords = 256;

// The shape of every collective is one dim, `count`: the count argument of NCCL's own call
// (ncclAllReduce's count, ncclAllGather's sendcount, ncclReduceScatter's recvcount,
// ncclAlltoAll's per-peer count, ncclBroadcast's and ncclSend's count). Any count is valid at
// any world size (1, 3 and 1000003 included); nothing needs to divide by the world size.
//
// One rank's buffers, the same on every rank:
//   all_reduce      send count,      recv count         recv = sum over ranks of send
//   all_gather      send count,      recv n*count       recv[s*count + i] = send of rank s [i]
//   reduce_scatter  send n*count,    recv count         recv = sum over s of send_s[r*count + i]
//   broadcast       send count,      recv count         recv = send of rank 0 (the root)
//   all_to_all      send n*count,    recv n*count       recv[s*count + i] = send_s[r*count + i]
//   p2p             send count,      recv count         recv = send of rank (r - peer_shift) mod n
struct RankTensors {
  int64_t send_elements = 0;
  int64_t recv_elements = 0;
};

// Rank `rank`'s output (recv) in float64 from every rank's input (send, already rounded to the
// problem's dtype), indexed by rank.
using RankReferenceFn =
    std::function<void(const Problem& problem, const std::vector<std::vector<double>>& sends,
                       int rank, std::vector<double>* recv)>;

// What the catalogue knows about a collective beyond its one-rank Operation entry.
struct CollectiveDesc {
  std::string op;
  std::string description;
  RankTensors (*tensors)(int64_t count, int world_size) = nullptr;
  // nccl-tests' "size" in elements: the per-rank buffer the algorithm bandwidth divides by
  // (all_reduce's, broadcast's and p2p's count; all_gather's output and reduce_scatter's
  // input, n*count; all_to_all's whole send buffer, n*count).
  int64_t (*message_elements)(int64_t count, int world_size) = nullptr;
  // nccl-tests' bus factor (doc/PERFORMANCE.md): the fraction of the message each rank must
  // move over its link whatever the algorithm, so that bus bandwidth compares with the link's
  // peak at any n: all_reduce 2(n-1)/n (a reduce-scatter then an all-gather), all_gather,
  // reduce_scatter and all_to_all (n-1)/n (a rank keeps its own 1/n), broadcast and p2p 1.
  double (*bus_factor)(int world_size) = nullptr;
  // Sums (float32 arithmetic or better, rounded to the dtype); the others move bits exactly.
  bool reduces = false;
  RankReferenceFn reference;
};

// The six collectives, in catalogue order.
const std::vector<CollectiveDesc>& Collectives();
// nullptr when `op` is not a collective.
const CollectiveDesc* FindCollective(const std::string& op);

// A collective problem's figures at `world_size` ranks, nccl-tests' conventions:
// algorithm bandwidth = message_bytes / time, bus bandwidth = algorithm bandwidth * bus_factor.
struct CollectiveBytes {
  int64_t message_bytes = 0;
  double bus_factor = 0;
  // message_bytes * bus_factor: the bytes that a time turns into bus bandwidth.
  double bus_bytes() const { return static_cast<double>(message_bytes) * bus_factor; }
};
CollectiveBytes ByteModel(const CollectiveDesc& collective, const Problem& problem, int world_size);

// One rank's Layout at `world_size` ranks: input "send", output "recv" (RankTensors). The
// peer-access all-reduce needs no workspace of the Layout's: its barrier flags belong to the
// executor's gang, not to a problem.
Layout CollectiveLayout(const CollectiveDesc& collective, const Problem& problem, int world_size);

// Checks what ValidateProblem cannot (it knows no world size): 2 <= world_size <=
// kMaxWorldSize, p2p's peer_shift below the world size, and one rank's buffers within the
// catalogue's element limit. INVALID_ARGUMENT naming the field and the value.
absl::Status ValidateCollective(const Problem& problem, int world_size);

// Relative L2 tolerance of every rank's output: 0 (bit-exact) for the collectives that move
// data; for the sums, the dtype's default (float32 adds in any order err far below 1e-5 at 8
// ranks; bf16 rounds the output, 2^-9 relative).
double CollectiveTolerance(const CollectiveDesc& collective, const Problem& problem);

// host_staged's staging, in bytes, on the host and on each rank: every rank's send buffer (0 for
// the other variants). The launcher and the executor's buffers size it with this function.
int64_t StagingBytes(const Problem& problem, int world_size);

// Device memory one rank of the job holds: send, recv, staging and the barrier flags. What a
// submit compares with each device's memory (MemoryFootprint knows no world size).
int64_t CollectiveMemoryPerRank(const Problem& problem, int world_size);

// The seed of rank `rank`'s inputs from the job's seed: distinct per rank (kernels::DeriveSeed),
// so that a collective that returned its own input, or rank 0's everywhere, fails.
uint64_t RankSeed(uint64_t seed, int rank);

// The broadcast's root.
inline constexpr int kBroadcastRoot = 0;

}  // namespace kbench::kernels
