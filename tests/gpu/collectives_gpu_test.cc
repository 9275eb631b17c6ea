// The collectives on two GPUs (issue 30): every collective and variant correct on every rank at
// 1, 3 and 1000003 elements, over several calls back to back (the peer-access barriers'
// epochs), and whole jobs through RunCollectiveJob: the bus bandwidth, per-rank times and the
// interconnect's peak filled in; a wrong lead or a one-device operation refused. Labelled
// `gpu`; skips with fewer than two CUDA devices.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/catalogue.h"
#include "kernels/cuda/collectives.h"
#include "kernels/ops/collectives.h"
#include "server/executor/backend.h"
#include "server/executor/cuda/collective_buffers.h"
#include "server/executor/cuda/collective_check.h"
#include "server/executor/cuda/collective_job.h"
#include "server/executor/cuda/cuda_runner.h"
#include "server/executor/cuda/gang.h"

namespace kbench::executor::cuda {
namespace {

int CudaDevices() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

#define KBENCH_SKIP_WITHOUT_TWO_GPUS() \
  if (CudaDevices() < 2) GTEST_SKIP() << "fewer than two CUDA devices (" << CudaDevices() << ")"

const std::vector<std::string> kTwoDevices = {"cuda:0", "cuda:1"};

struct Case {
  std::string op, variant;
  kernels::DType dtype;
  int64_t count;
};

std::string Name(const Case& c) {
  return absl::StrCat(c.op, "_", c.variant, "_", kernels::DTypeName(c.dtype), "_", c.count);
}
std::string CaseName(const ::testing::TestParamInfo<Case>& info) { return Name(info.param); }
// gtest prints a parameter with PrintTo; the case name says it all.
void PrintTo(const Case& c, std::ostream* os) { *os << Name(c); }

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const kernels::cuda::CollectiveVariant& v : kernels::cuda::CollectiveVariants()) {
    const kernels::VariantDesc* desc = kernels::FindOperation(v.op)->FindVariant(v.variant);
    for (kernels::DType dtype : desc->dtypes) {
      for (int64_t count : {1, 3, 1000003}) cases.push_back({v.op, v.variant, dtype, count});
    }
  }
  return cases;
}

// One gang for the suite, as one job holds it.
class CollectiveVariantTest : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    if (CudaDevices() < 2) return;
    absl::StatusOr<std::unique_ptr<DeviceGang>> gang = DeviceGang::Open(kTwoDevices);
    open_ = new absl::Status(gang.status());
    if (gang.ok()) gang_ = gang->release();
  }
  static void TearDownTestSuite() {
    delete gang_;
    delete open_;
    gang_ = nullptr;
    open_ = nullptr;
  }
  void SetUp() override {
    KBENCH_SKIP_WITHOUT_TWO_GPUS();
    ASSERT_TRUE(open_->ok()) << *open_;
  }
  static DeviceGang* gang_;
  static absl::Status* open_;
};
DeviceGang* CollectiveVariantTest::gang_ = nullptr;
absl::Status* CollectiveVariantTest::open_ = nullptr;

TEST_P(CollectiveVariantTest, EveryRankMatchesTheReferenceAfterCallsBackToBack) {
  const Case& c = GetParam();
  kernels::Problem p;
  p.op = c.op;
  p.variant = c.variant;
  p.shape = {c.count};
  p.dtype = c.dtype;
  ASSERT_TRUE(kernels::ValidateProblem(&p).ok());
  ASSERT_TRUE(kernels::ValidateCollective(p, gang_->world_size()).ok());
  const kernels::cuda::CollectiveVariant& variant =
      *kernels::cuda::FindCollectiveVariant(c.op, c.variant);
  absl::StatusOr<std::unique_ptr<CollectiveBuffers>> buffers =
      CollectiveBuffers::Allocate(*gang_, p, variant);
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  for (uint64_t seed : {11u, 12u}) {
    ASSERT_TRUE((*buffers)->FillInputsAndPoison(seed).ok());
    // Three calls on the same inputs: each must give the same answer (barrier flags of the
    // earlier calls must neither block nor release the later ones early).
    for (int call = 0; call < 3; ++call) {
      const absl::Status launched = variant.launch(p, (*buffers)->launch());
      ASSERT_TRUE(launched.ok()) << launched;
    }
    const absl::Status idle = gang_->Synchronize(nullptr, 30);
    ASSERT_TRUE(idle.ok()) << idle;
    std::vector<int64_t> unwritten;
    absl::StatusOr<std::vector<std::vector<double>>> sends = (*buffers)->ReadSends();
    absl::StatusOr<std::vector<std::vector<double>>> recvs = (*buffers)->ReadRecvs(&unwritten);
    ASSERT_TRUE(sends.ok() && recvs.ok());
    const GangCorrectness checked = CheckEveryRank(p, *sends, *recvs, unwritten, seed);
    EXPECT_EQ(checked.failed_rank, -1) << checked.correctness.detail();
    EXPECT_EQ(checked.ranks_checked, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(AllCollectives, CollectiveVariantTest, ::testing::ValuesIn(AllCases()),
                         CaseName);

// ---- whole jobs ---------------------------------------------------------------------------

struct TestJob {
  internal::v1::RunJob job;
  JobContext context;
};

std::unique_ptr<TestJob> MakeJob(const std::string& op, const std::vector<std::string>& variants,
                                 int64_t count, const std::vector<std::string>& devices) {
  static int counter = 0;
  auto t = std::make_unique<TestJob>();
  v1::JobSpec* spec = t->job.mutable_spec();
  spec->set_kind(v1::JOB_KIND_BENCHMARK);
  spec->set_kernel(op);
  for (const std::string& v : variants) spec->add_variants(v);
  spec->add_shape(count);
  spec->set_dtype(v1::DTYPE_F32);
  spec->set_device(devices.front());
  for (const std::string& d : devices) spec->add_devices(d);
  spec->mutable_stopping()->set_min_time_seconds(0.05);
  spec->mutable_stopping()->set_timeout_seconds(2);
  const std::string dir =
      absl::StrCat(::testing::TempDir(), "/collectives_", getpid(), "_", counter++);
  std::filesystem::create_directories(dir);
  t->job.set_job_id(absl::StrCat("collective-", counter));
  t->job.set_artifact_dir(dir);
  t->context.job = &t->job;
  return t;
}

class CollectiveJobTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (CudaDevices() < 2) return;
    lead_ = new CudaRunner(0);
    init_ = new absl::Status(lead_->Initialize());
  }
  static void TearDownTestSuite() {
    delete lead_;
    delete init_;
    lead_ = nullptr;
    init_ = nullptr;
  }
  void SetUp() override {
    KBENCH_SKIP_WITHOUT_TWO_GPUS();
    ASSERT_TRUE(init_->ok()) << *init_;
  }
  static CudaRunner* lead_;
  static absl::Status* init_;
};
CudaRunner* CollectiveJobTest::lead_ = nullptr;
absl::Status* CollectiveJobTest::init_ = nullptr;

TEST_F(CollectiveJobTest, AllReduceReportsBusBandwidthPerRankTimesAndThePeak) {
  const std::vector<std::string> variants = {"nccl", "one_shot", "two_shot", "host_staged"};
  std::unique_ptr<TestJob> t = MakeJob("all_reduce", variants, 1000003, kTwoDevices);
  ASSERT_TRUE(IsCollectiveJob(t->job.spec()));
  absl::StatusOr<JobRun> run = RunCollectiveJob(*lead_, t->context);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->result.variants_size(), 4);
  for (const v1::VariantResult& vr : run->result.variants()) {
    SCOPED_TRACE(vr.variant());
    EXPECT_TRUE(vr.correctness().passed());
    EXPECT_TRUE(vr.timed_correctness().passed());
    EXPECT_GT(vr.stats().samples(), 0);
    const v1::Collective& c = vr.collective();
    EXPECT_EQ(c.world_size(), 2);
    EXPECT_EQ(c.devices_size(), 2);
    EXPECT_EQ(c.message_bytes(), 4 * 1000003);
    EXPECT_DOUBLE_EQ(c.bus_factor(), 1.0);  // 2(n-1)/n at n = 2
    EXPECT_EQ(c.rank_median_seconds_size(), 2);
    EXPECT_EQ(c.ranks_checked(), 2);
    EXPECT_GT(c.peak_bus_bytes_per_second(), 0);
    EXPECT_DOUBLE_EQ(c.bus_bytes_per_second(), c.algorithm_bytes_per_second() * c.bus_factor());
    EXPECT_DOUBLE_EQ(vr.bytes_per_second(), c.bus_bytes_per_second());
    std::printf(
        "[ RESULT   ] all_reduce/%-11s 1000003 f32: median %9.2f us  busbw %7.1f GB/s  "
        "(peak %6.1f GB/s)  rank medians %.2f / %.2f us\n",
        vr.variant().c_str(), vr.stats().median_seconds() * 1e6, c.bus_bytes_per_second() / 1e9,
        c.peak_bus_bytes_per_second() / 1e9, c.rank_median_seconds(0) * 1e6,
        c.rank_median_seconds(1) * 1e6);
  }
  EXPECT_FALSE(lead_->NeedsRestart());
}

TEST_F(CollectiveJobTest, EveryCollectiveRunsAsAJobAtAnOddCount) {
  for (const kernels::CollectiveDesc& c : kernels::Collectives()) {
    std::unique_ptr<TestJob> t = MakeJob(c.op, {"nccl"}, 3, kTwoDevices);
    absl::StatusOr<JobRun> run = RunCollectiveJob(*lead_, t->context);
    ASSERT_TRUE(run.ok()) << c.op << ": " << run.status();
    EXPECT_EQ(run->result.variants(0).collective().ranks_checked(), 2) << c.op;
  }
}

// A user's one-shot all-reduce written to the ABI `kbctl kernels all_reduce --abi` prints, and
// one that returns its own input (which every rank's check must catch).
constexpr char kUserAllReduce[] = R"(
__device__ void meet_peers(unsigned int* const* peer_flags, unsigned int call, int rank,
                           int world_size) {
  if (threadIdx.x < world_size) {
    __threadfence_system();
    unsigned int* theirs = peer_flags[threadIdx.x] + blockIdx.x * 8 + rank;
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(theirs), "r"(call) : "memory");
    unsigned int* mine = peer_flags[rank] + blockIdx.x * 8 + threadIdx.x;
    unsigned int seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(mine) : "memory");
    } while ((int)(seen - call) < 0);
  }
  __syncthreads();
}

extern "C" __global__ void user_all_reduce(
    const float* __restrict__ send, float* __restrict__ recv, const float* const* peer_send,
    float* const* peer_recv, unsigned int* const* peer_flags, long long count, unsigned int call,
    int rank, int world_size) {
  meet_peers(peer_flags, call, rank, world_size);
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    float sum = 0;
    for (int s = 0; s < world_size; ++s) sum += __ldcg(peer_send[s] + i);
    recv[i] = sum;
  }
}

extern "C" __global__ void user_own_input(
    const float* __restrict__ send, float* __restrict__ recv, const float* const* peer_send,
    float* const* peer_recv, unsigned int* const* peer_flags, long long count, unsigned int call,
    int rank, int world_size) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    recv[i] = send[i];
  }
}
)";

void AddUserKernel(TestJob* t, const std::string& entry) {
  v1::JobSpec* spec = t->job.mutable_spec();
  spec->add_variants("@mine");
  v1::UserKernel* uk = spec->add_user_kernels();
  uk->set_name("@mine");
  uk->set_form(v1::USER_KERNEL_FORM_CUDA);
  uk->set_code(kUserAllReduce);
  uk->set_file_name("all_reduce.cu");
  uk->set_entry(entry);
  // At most 32 blocks: the peer_flags slots are 8 per block (kernels' kPeerFlagWords = 256).
  uk->mutable_launch()->add_grid("min(cdiv(count, 1024), 32)");
  uk->mutable_launch()->add_block("256");
}

TEST_F(CollectiveJobTest, AUsersAllReduceRunsOnEveryRankAndIsChecked) {
  std::unique_ptr<TestJob> t = MakeJob("all_reduce", {"nccl"}, 1000003, kTwoDevices);
  AddUserKernel(t.get(), "user_all_reduce");
  absl::StatusOr<JobRun> run = RunCollectiveJob(*lead_, t->context);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->result.variants_size(), 2);
  const v1::VariantResult& user = run->result.variants(1);
  EXPECT_EQ(user.variant(), "@mine");
  EXPECT_TRUE(user.correctness().passed());
  EXPECT_TRUE(user.timed_correctness().passed());
  EXPECT_EQ(user.collective().ranks_checked(), 2);
  EXPECT_FALSE(user.user_module().module_sha256().empty());
}

TEST_F(CollectiveJobTest, AUsersKernelThatKeepsItsOwnInputFailsNamingTheRank) {
  std::unique_ptr<TestJob> t = MakeJob("all_reduce", {"nccl"}, 1000, kTwoDevices);
  AddUserKernel(t.get(), "user_own_input");
  absl::StatusOr<JobRun> run = RunCollectiveJob(*lead_, t->context);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_NE(run.status().message().find("@mine on rank 0 (cuda:0)"), absl::string_view::npos)
      << run.status();
  EXPECT_FALSE(lead_->NeedsRestart());
}

TEST_F(CollectiveJobTest, RefusesAJobWhoseLeadIsAnotherDevice) {
  std::unique_ptr<TestJob> t = MakeJob("all_reduce", {"nccl"}, 3, {"cuda:1", "cuda:0"});
  absl::StatusOr<JobRun> run = RunCollectiveJob(*lead_, t->context);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_NE(run.status().message().find("lead"), absl::string_view::npos) << run.status();
  EXPECT_FALSE(lead_->NeedsRestart());
}

TEST_F(CollectiveJobTest, RefusesAOneDeviceOperationOnSeveralDevices) {
  std::unique_ptr<TestJob> t = MakeJob("copy", {"vectorized"}, 3, kTwoDevices);
  ASSERT_TRUE(IsCollectiveJob(t->job.spec()));
  absl::StatusOr<JobRun> run = RunCollectiveJob(*lead_, t->context);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument) << run.status();
}

}  // namespace
}  // namespace kbench::executor::cuda

// A user kernel's compile runs in a child process of this very program (usermodule's compile
// child re-executes /proc/self/exe), as it does of kbench-executor.
int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--compile-user-kernel") {
    return kbench::executor::RunCompileUserKernelChild(argc, argv);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
