// The collectives' registrations: per-rank tensors, float64 references, nccl-tests' byte model,
// and their catalogue entries (one rank at the smallest world).
#include "kernels/ops/collectives.h"

#include "absl/strings/str_cat.h"
#include "kernels/ops/ops.h"
#include "kernels/random.h"

namespace kbench::kernels {
namespace {

// The catalogue's element limit for one tensor (catalogue.cc's kMaxElements).
constexpr int64_t kMaxRankElements = int64_t{1} << 40;
// 64 MiB of f32 per rank: past the sizes where NCCL's latency dominates, as nccl-tests' plots.
constexpr int64_t kDefaultCount = int64_t{1} << 24;

double AllReduceFactor(int n) { return 2.0 * (n - 1) / n; }
double OneLinkShareFactor(int n) { return static_cast<double>(n - 1) / n; }
double WholeMessageFactor(int) { return 1.0; }

RankTensors Same(int64_t count, int) { return {count, count}; }
RankTensors GatherTensors(int64_t count, int n) { return {count, n * count}; }
RankTensors ScatterTensors(int64_t count, int n) { return {n * count, count}; }
RankTensors AllToAllTensors(int64_t count, int n) { return {n * count, n * count}; }

int64_t CountElements(int64_t count, int) { return count; }
int64_t WorldElements(int64_t count, int n) { return n * count; }

int WorldOf(const std::vector<std::vector<double>>& sends) {
  return static_cast<int>(sends.size());
}

void SumOfRanks(const std::vector<std::vector<double>>& sends, int64_t offset,
                std::vector<double>* recv) {
  for (size_t i = 0; i < recv->size(); ++i) {
    double sum = 0;
    for (const std::vector<double>& send : sends) sum += send[offset + i];
    (*recv)[i] = sum;
  }
}

CollectiveDesc AllReduce() {
  return {"all_reduce",
          "sum of every rank's input (count elements each), on every rank",
          Same,
          CountElements,
          AllReduceFactor,
          true,
          [](const Problem&, const std::vector<std::vector<double>>& sends, int,
             std::vector<double>* recv) { SumOfRanks(sends, 0, recv); }};
}

CollectiveDesc AllGather() {
  return {"all_gather",
          "every rank's input, concatenated in rank order, on every rank",
          GatherTensors,
          WorldElements,
          OneLinkShareFactor,
          false,
          [](const Problem& p, const std::vector<std::vector<double>>& sends, int,
             std::vector<double>* recv) {
            const int64_t count = p.dim(0);
            for (int s = 0; s < WorldOf(sends); ++s) {
              for (int64_t i = 0; i < count; ++i) (*recv)[s * count + i] = sends[s][i];
            }
          }};
}

CollectiveDesc ReduceScatter() {
  return {"reduce_scatter",
          "the sum of every rank's input of n chunks, rank r keeping chunk r",
          ScatterTensors,
          WorldElements,
          OneLinkShareFactor,
          true,
          [](const Problem& p, const std::vector<std::vector<double>>& sends, int rank,
             std::vector<double>* recv) { SumOfRanks(sends, rank * p.dim(0), recv); }};
}

CollectiveDesc Broadcast() {
  return {"broadcast",
          "rank 0's input on every rank",
          Same,
          CountElements,
          WholeMessageFactor,
          false,
          [](const Problem&, const std::vector<std::vector<double>>& sends, int,
             std::vector<double>* recv) { *recv = sends[kBroadcastRoot]; }};
}

CollectiveDesc AllToAll() {
  return {"all_to_all",
          "chunk s of rank r's input goes to chunk r of rank s's output",
          AllToAllTensors,
          WorldElements,
          OneLinkShareFactor,
          false,
          [](const Problem& p, const std::vector<std::vector<double>>& sends, int rank,
             std::vector<double>* recv) {
            const int64_t count = p.dim(0);
            for (int s = 0; s < WorldOf(sends); ++s) {
              for (int64_t i = 0; i < count; ++i) {
                (*recv)[s * count + i] = sends[s][rank * count + i];
              }
            }
          }};
}

CollectiveDesc PeerToPeer() {
  return {"p2p",
          "rank r's input to rank (r + peer_shift) mod n, every rank at once (nccl-tests' "
          "sendrecv); peer_shift 1..n-1 covers every ordered pair",
          Same,
          CountElements,
          WholeMessageFactor,
          false,
          [](const Problem& p, const std::vector<std::vector<double>>& sends, int rank,
             std::vector<double>* recv) {
            const int n = WorldOf(sends);
            const int shift = static_cast<int>(p.param("peer_shift"));
            *recv = sends[((rank - shift) % n + n) % n];
          }};
}

std::vector<DType> F32AndBF16() { return {DType::kF32, DType::kBF16}; }

VariantDesc NcclVariant() {
  return {"nccl", "NCCL, the vendor's library (one communicator per rank, NVLS off)",
          Backend::kCuda, F32AndBF16()};
}

// all_reduce's own variants besides NCCL: TensorRT-LLM's custom all-reduce design over peer
// access, and the floor through host memory.
std::vector<VariantDesc> AllReduceVariants() {
  return {
      NcclVariant(),
      {"one_shot",
       "every rank reads all peers' inputs directly (peer pointers) after a flag barrier and "
       "sums them: one step, (n-1) messages in per rank; wins on small messages",
       Backend::kCuda, F32AndBF16()},
      {"two_shot",
       "reduce-scatter then all-gather over peer pointers, a flag barrier between: each rank "
       "sums 1/n of the message, then reads the other sums",
       Backend::kCuda, F32AndBF16()},
      {"host_staged",
       "every rank's input copied to pinned host memory and back to every rank, summed on the "
       "device: the floor without peer access",
       Backend::kCuda, F32AndBF16()},
  };
}

Operation MakeCollectiveOp(const CollectiveDesc& c) {
  Operation op;
  op.name = c.op;
  op.description = c.description;
  op.dims = {"count"};
  op.default_shape = {kDefaultCount};
  op.min_devices = kMinWorldSize;
  if (c.op == "p2p") {
    op.params = {{"peer_shift",
                  "rank r sends to rank (r + peer_shift) mod n, below the job's world size", 1,
                  kMaxWorldSize - 1, 1}};
  }
  op.variants = c.op == "all_reduce" ? AllReduceVariants() : std::vector{NcclVariant()};
  op.cost_model = absl::StrCat(
      "one rank at 2 ranks (a job's world size changes it: kernels/ops/collectives.h); bytes: "
      "nccl-tests' message size x bus factor, so bytes/s is the bus bandwidth; flops: ",
      c.reduces ? "(n-1) adds per output element" : "0");
  // The one-rank view at min_devices ranks; a job of n ranks uses CollectiveLayout(n).
  op.layout = [c](const Problem& p) { return CollectiveLayout(c, p, kMinWorldSize); };
  op.cost = [c](const Problem& p) {
    const CollectiveBytes bytes = ByteModel(c, p, kMinWorldSize);
    const int64_t outputs = c.tensors(p.dim(0), kMinWorldSize).recv_elements;
    return Cost{static_cast<int64_t>(bytes.bus_bytes()),
                c.reduces ? (kMinWorldSize - 1) * outputs : 0};
  };
  // No one-device reference: a rank's output depends on every rank's input (c.reference).
  op.tolerance = [c](const Problem& p) { return CollectiveTolerance(c, p); };
  return op;
}

}  // namespace

const std::vector<CollectiveDesc>& Collectives() {
  static const std::vector<CollectiveDesc>* collectives = new std::vector<CollectiveDesc>{
      AllReduce(), AllGather(), ReduceScatter(), Broadcast(), AllToAll(), PeerToPeer(),
  };
  return *collectives;
}

const CollectiveDesc* FindCollective(const std::string& op) {
  for (const CollectiveDesc& c : Collectives()) {
    if (c.op == op) return &c;
  }
  return nullptr;
}

std::vector<Operation> MakeCollectiveOps() {
  std::vector<Operation> ops;
  for (const CollectiveDesc& c : Collectives()) ops.push_back(MakeCollectiveOp(c));
  return ops;
}

CollectiveBytes ByteModel(const CollectiveDesc& c, const Problem& problem, int world_size) {
  return {c.message_elements(problem.dim(0), world_size) *
              static_cast<int64_t>(StorageBytes(problem.dtype)),
          c.bus_factor(world_size)};
}

Layout CollectiveLayout(const CollectiveDesc& c, const Problem& problem, int world_size) {
  const RankTensors t = c.tensors(problem.dim(0), world_size);
  Layout layout;
  layout.inputs.push_back({"send", t.send_elements});
  layout.outputs.push_back({"recv", t.recv_elements});
  return layout;
}

absl::Status ValidateCollective(const Problem& problem, int world_size) {
  const CollectiveDesc* c = FindCollective(problem.op);
  if (c == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel: '", problem.op, "' is not a collective"));
  }
  if (world_size < kMinWorldSize || world_size > kMaxWorldSize) {
    return absl::InvalidArgumentError(absl::StrCat("devices: ", problem.op, " takes ",
                                                   kMinWorldSize, " to ", kMaxWorldSize,
                                                   " devices (one per rank), got ", world_size));
  }
  if (problem.shape.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape: ", problem.op, " takes one dim (count)"));
  }
  const int64_t count = problem.dim(0);
  if (count <= 0 || count > kMaxRankElements / world_size) {
    return absl::InvalidArgumentError(absl::StrCat("shape: count = ", count, " at ", world_size,
                                                   " ranks is outside [1, 2^40 / ranks]"));
  }
  const auto shift = problem.params.find("peer_shift");
  if (shift != problem.params.end() && (shift->second < 1 || shift->second >= world_size)) {
    return absl::InvalidArgumentError(absl::StrCat("params: peer_shift = ", shift->second,
                                                   " must be in [1, ", world_size - 1, "] at ",
                                                   world_size, " ranks"));
  }
  return absl::OkStatus();
}

double CollectiveTolerance(const CollectiveDesc& c, const Problem& problem) {
  return c.reduces ? DefaultTolerance(problem.dtype) : 0.0;
}

int64_t StagingBytes(const Problem& problem, int world_size) {
  const CollectiveDesc* c = FindCollective(problem.op);
  if (c == nullptr || problem.variant != "host_staged") return 0;
  return world_size * c->tensors(problem.dim(0), world_size).send_elements *
         static_cast<int64_t>(StorageBytes(problem.dtype));
}

int64_t CollectiveMemoryPerRank(const Problem& problem, int world_size) {
  const CollectiveDesc* c = FindCollective(problem.op);
  if (c == nullptr) return 0;
  const RankTensors t = c->tensors(problem.dim(0), world_size);
  return (t.send_elements + t.recv_elements) * static_cast<int64_t>(StorageBytes(problem.dtype)) +
         StagingBytes(problem, world_size) +
         kPeerFlagWords * static_cast<int64_t>(sizeof(uint32_t));
}

uint64_t RankSeed(uint64_t seed, int rank) {
  // DeriveSeed(seed, 0) is the seed itself: rank 0 takes the job's inputs, the others their own.
  return DeriveSeed(seed, static_cast<uint64_t>(rank));
}

}  // namespace kbench::kernels
