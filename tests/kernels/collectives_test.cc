// The collectives' catalogue entries (issue 30): nccl-tests' byte model per collective, the
// float64 references of every rank on small odd counts, validation at a world size, and the six
// operations listed with min_devices 2.
#include "kernels/ops/collectives.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "kernels/catalogue.h"
#include "kernels/random.h"

namespace kbench::kernels {
namespace {

Problem MakeProblem(const std::string& op, int64_t count, DType dtype = DType::kF32) {
  Problem p;
  p.op = op;
  p.variant = "nccl";
  p.shape = {count};
  p.dtype = dtype;
  EXPECT_TRUE(ValidateProblem(&p).ok()) << ValidateProblem(&p);
  return p;
}

const CollectiveDesc& Get(const std::string& op) {
  const CollectiveDesc* c = FindCollective(op);
  EXPECT_NE(c, nullptr) << op;
  return *c;
}

// nccl-tests' src/*.cu GetBw, written out independently of collectives.cc: the bus factor and
// the size its algbw divides by.
double NcclTestsFactor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") {
    return static_cast<double>(n - 1) / n;
  }
  return 1.0;  // broadcast, p2p (sendrecv)
}

int64_t NcclTestsSizeBytes(const std::string& op, int64_t count, int n, int64_t element_bytes) {
  const bool whole_world = op == "all_gather" || op == "reduce_scatter" || op == "all_to_all";
  return (whole_world ? n * count : count) * element_bytes;
}

TEST(CollectiveByteModel, MatchesNcclTestsAtTwoFourAndEightRanks) {
  for (const CollectiveDesc& c : Collectives()) {
    for (int n : {2, 4, 8}) {
      for (DType dtype : {DType::kF32, DType::kBF16}) {
        const Problem p = MakeProblem(c.op, 1000003, dtype);
        const CollectiveBytes b = ByteModel(c, p, n);
        const int64_t element = dtype == DType::kF32 ? 4 : 2;
        EXPECT_EQ(b.message_bytes, NcclTestsSizeBytes(c.op, 1000003, n, element))
            << c.op << " n=" << n;
        EXPECT_DOUBLE_EQ(b.bus_factor, NcclTestsFactor(c.op, n)) << c.op << " n=" << n;
        EXPECT_DOUBLE_EQ(b.bus_bytes(), b.message_bytes * NcclTestsFactor(c.op, n));
      }
    }
  }
}

TEST(CollectiveByteModel, AllReduceAtEightRanksMovesSevenQuartersOfTheMessage) {
  const Problem p = MakeProblem("all_reduce", 1 << 20);
  const CollectiveBytes b = ByteModel(Get("all_reduce"), p, 8);
  EXPECT_EQ(b.message_bytes, 4 << 20);
  EXPECT_DOUBLE_EQ(b.bus_factor, 1.75);
}

TEST(CollectiveLayout, GatherAndScatterHoldTheWholeWorldOnOneSide) {
  const Problem p = MakeProblem("all_gather", 3);
  Layout l = CollectiveLayout(Get("all_gather"), p, 4);
  EXPECT_EQ(l.inputs.at(0).elements, 3);
  EXPECT_EQ(l.outputs.at(0).elements, 12);
  l = CollectiveLayout(Get("reduce_scatter"), MakeProblem("reduce_scatter", 3), 4);
  EXPECT_EQ(l.inputs.at(0).elements, 12);
  EXPECT_EQ(l.outputs.at(0).elements, 3);
  l = CollectiveLayout(Get("all_to_all"), MakeProblem("all_to_all", 3), 4);
  EXPECT_EQ(l.inputs.at(0).elements, 12);
  EXPECT_EQ(l.outputs.at(0).elements, 12);
  l = CollectiveLayout(Get("all_reduce"), MakeProblem("all_reduce", 3), 4);
  EXPECT_EQ(l.inputs.at(0).elements, 3);
  EXPECT_EQ(l.outputs.at(0).elements, 3);
}

// Every rank's send buffer from its own seed, as the executor generates them.
std::vector<std::vector<double>> Sends(const CollectiveDesc& c, const Problem& p, int n) {
  std::vector<std::vector<double>> sends(n);
  const int64_t elements = c.tensors(p.dim(0), n).send_elements;
  for (int r = 0; r < n; ++r) {
    for (int64_t i = 0; i < elements; ++i) {
      sends[r].push_back(UniformAt(RankSeed(42, r), 0, static_cast<uint64_t>(i), 1.0f));
    }
  }
  return sends;
}

std::vector<double> RankOutput(const CollectiveDesc& c, const Problem& p,
                               const std::vector<std::vector<double>>& sends, int rank) {
  std::vector<double> recv(c.tensors(p.dim(0), static_cast<int>(sends.size())).recv_elements,
                           -1e300);
  c.reference(p, sends, rank, &recv);
  return recv;
}

TEST(CollectiveReference, AllReduceOfThreeElementsOverTwoRanksIsTheElementwiseSum) {
  const CollectiveDesc& c = Get("all_reduce");
  const Problem p = MakeProblem("all_reduce", 3);
  const std::vector<std::vector<double>> sends = {{1, 2, 3}, {10, 20, 30}};
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(RankOutput(c, p, sends, r), (std::vector<double>{11, 22, 33}));
}

TEST(CollectiveReference, AllGatherConcatenatesInRankOrder) {
  const CollectiveDesc& c = Get("all_gather");
  const Problem p = MakeProblem("all_gather", 1);
  const std::vector<std::vector<double>> sends = {{5}, {6}, {7}};
  for (int r = 0; r < 3; ++r) EXPECT_EQ(RankOutput(c, p, sends, r), (std::vector<double>{5, 6, 7}));
}

TEST(CollectiveReference, ReduceScatterKeepsChunkRankOfTheSum) {
  const CollectiveDesc& c = Get("reduce_scatter");
  const Problem p = MakeProblem("reduce_scatter", 3);
  const std::vector<std::vector<double>> sends = {{1, 2, 3, 4, 5, 6}, {10, 20, 30, 40, 50, 60}};
  EXPECT_EQ(RankOutput(c, p, sends, 0), (std::vector<double>{11, 22, 33}));
  EXPECT_EQ(RankOutput(c, p, sends, 1), (std::vector<double>{44, 55, 66}));
}

TEST(CollectiveReference, BroadcastCopiesRankZero) {
  const CollectiveDesc& c = Get("broadcast");
  const Problem p = MakeProblem("broadcast", 3);
  const std::vector<std::vector<double>> sends = {{1, 2, 3}, {4, 5, 6}};
  EXPECT_EQ(RankOutput(c, p, sends, 1), (std::vector<double>{1, 2, 3}));
}

TEST(CollectiveReference, AllToAllTransposesChunks) {
  const CollectiveDesc& c = Get("all_to_all");
  const Problem p = MakeProblem("all_to_all", 1);
  // Rank r's chunk s holds 10*r + s.
  const std::vector<std::vector<double>> sends = {{0, 1, 2}, {10, 11, 12}, {20, 21, 22}};
  EXPECT_EQ(RankOutput(c, p, sends, 0), (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(RankOutput(c, p, sends, 2), (std::vector<double>{2, 12, 22}));
}

TEST(CollectiveReference, PeerToPeerReceivesFromTheRankPeerShiftBefore) {
  const CollectiveDesc& c = Get("p2p");
  Problem p = MakeProblem("p2p", 1);
  const std::vector<std::vector<double>> sends = {{0}, {1}, {2}, {3}};
  EXPECT_EQ(RankOutput(c, p, sends, 0), std::vector<double>{3});
  p.params["peer_shift"] = 3;
  EXPECT_EQ(RankOutput(c, p, sends, 0), std::vector<double>{1});
  EXPECT_EQ(RankOutput(c, p, sends, 2), std::vector<double>{3});
}

TEST(CollectiveReference, EveryRankDiffersFromItsOwnInputAtOddCounts) {
  // A collective that left a rank's input in place (or copied it) must fail the check: at these
  // seeds no reference equals the rank's own send buffer.
  for (const CollectiveDesc& c : Collectives()) {
    for (int64_t count : {1, 3, 1001}) {
      const Problem p = MakeProblem(c.op, count);
      for (int n : {2, 3}) {
        const std::vector<std::vector<double>> sends = Sends(c, p, n);
        for (int r = 0; r < n; ++r) {
          if (c.op == "broadcast" && r == kBroadcastRoot) continue;
          const std::vector<double> recv = RankOutput(c, p, sends, r);
          for (double v : recv) ASSERT_GT(v, -1e300) << c.op << " left an element unwritten";
          EXPECT_NE(recv, sends[r]) << c.op << " count " << count << " rank " << r;
        }
      }
    }
  }
}

TEST(RankSeed, DiffersPerRankAndKeepsTheJobSeedAtRankZero) {
  std::set<uint64_t> seeds;
  for (int r = 0; r < kMaxWorldSize; ++r) seeds.insert(RankSeed(7, r));
  EXPECT_EQ(seeds.size(), static_cast<size_t>(kMaxWorldSize));
  EXPECT_EQ(RankSeed(7, 0), 7u);
}

TEST(ValidateCollective, RefusesWorldSizesOutsideTwoToEight) {
  const Problem p = MakeProblem("all_reduce", 3);
  EXPECT_TRUE(ValidateCollective(p, 2).ok());
  EXPECT_TRUE(ValidateCollective(p, 8).ok());
  for (int n : {0, 1, 9}) {
    const absl::Status s = ValidateCollective(p, n);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << n;
    EXPECT_NE(s.message().find("devices"), absl::string_view::npos) << s;
  }
}

TEST(ValidateCollective, AcceptsOddCountsAtAnyWorldSize) {
  for (const CollectiveDesc& c : Collectives()) {
    for (int64_t count : {1, 3, 1000003}) {
      for (int n : {2, 3, 8}) {
        EXPECT_TRUE(ValidateCollective(MakeProblem(c.op, count), n).ok()) << c.op << " " << n;
      }
    }
  }
}

TEST(ValidateCollective, RefusesAPeerShiftAtOrPastTheWorldSize) {
  Problem p = MakeProblem("p2p", 3);
  p.params["peer_shift"] = 2;
  EXPECT_TRUE(ValidateCollective(p, 3).ok());
  const absl::Status s = ValidateCollective(p, 2);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("peer_shift = 2"), absl::string_view::npos) << s;
}

TEST(ValidateCollective, AcceptsTheLargestDimAtEightRanksAndRefusesAnEmptyCount) {
  // ValidateProblem caps a dim at 2^31 - 1: eight ranks of it stay within 2^40 elements.
  EXPECT_TRUE(ValidateCollective(MakeProblem("all_gather", (int64_t{1} << 31) - 1), 8).ok());
  Problem empty;
  empty.op = "broadcast";
  empty.shape = {0};
  const absl::Status s = ValidateCollective(empty, 2);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("count = 0"), absl::string_view::npos) << s;
}

TEST(ValidateCollective, RefusesAnOperationThatIsNoCollective) {
  Problem p;
  p.op = "add";
  p.shape = {3};
  EXPECT_EQ(ValidateCollective(p, 2).code(), absl::StatusCode::kInvalidArgument);
}

TEST(CollectiveTolerance, DataMovementIsBitExactAndSumsLoosenForBF16) {
  EXPECT_EQ(CollectiveTolerance(Get("all_gather"), MakeProblem("all_gather", 3)), 0.0);
  EXPECT_EQ(CollectiveTolerance(Get("p2p"), MakeProblem("p2p", 3)), 0.0);
  const double f32 = CollectiveTolerance(Get("all_reduce"), MakeProblem("all_reduce", 3));
  const double bf16 =
      CollectiveTolerance(Get("all_reduce"), MakeProblem("all_reduce", 3, DType::kBF16));
  EXPECT_GT(f32, 0);
  EXPECT_GT(bf16, f32);
}

TEST(CollectiveMemory, HostStagedHoldsEveryRanksInputBesidesItsOwnBuffers) {
  Problem staged = MakeProblem("all_reduce", 1000);
  staged.variant = "host_staged";
  EXPECT_EQ(StagingBytes(staged, 4), 4 * 4000);
  EXPECT_EQ(CollectiveMemoryPerRank(staged, 4), 4000 + 4000 + 4 * 4000 + 4 * kPeerFlagWords);
  const Problem nccl = MakeProblem("all_gather", 1000, DType::kBF16);
  EXPECT_EQ(StagingBytes(nccl, 4), 0);
  EXPECT_EQ(CollectiveMemoryPerRank(nccl, 4), 2000 + 4 * 2000 + 4 * kPeerFlagWords);
}

TEST(Catalogue, ListsTheSixCollectivesWithMinDevicesTwo) {
  const std::set<std::string> expected = {"all_reduce", "broadcast",  "all_gather",
                                          "p2p",        "all_to_all", "reduce_scatter"};
  std::set<std::string> multi_device;
  for (const Operation& op : Catalogue()) {
    if (op.min_devices > 1) {
      multi_device.insert(op.name);
      EXPECT_EQ(op.min_devices, 2) << op.name;
      EXPECT_NE(FindCollective(op.name), nullptr) << op.name;
      ASSERT_NE(op.FindVariant("nccl"), nullptr) << op.name;
    } else {
      EXPECT_EQ(FindCollective(op.name), nullptr) << op.name;
    }
  }
  EXPECT_EQ(multi_device, expected);
}

TEST(Catalogue, AllReduceOffersPeerAccessAndHostStagedVariantsInF32AndBF16) {
  const Operation& op = *FindOperation("all_reduce");
  for (const char* v : {"nccl", "one_shot", "two_shot", "host_staged"}) {
    const VariantDesc* d = op.FindVariant(v);
    ASSERT_NE(d, nullptr) << v;
    EXPECT_EQ(d->backend, Backend::kCuda) << v;
    EXPECT_EQ(d->dtypes, (std::vector<DType>{DType::kF32, DType::kBF16})) << v;
  }
}

TEST(Catalogue, CollectiveCostIsTheBusBytesAtTwoRanks) {
  const Operation& op = *FindOperation("all_reduce");
  const Problem p = MakeProblem("all_reduce", 1000);
  // 2(n-1)/n = 1 at n = 2.
  EXPECT_EQ(op.cost(p).bytes, 4000);
  EXPECT_EQ(MemoryFootprint(p), 8000);
}

}  // namespace
}  // namespace kbench::kernels
