// Integration (issue 10, items 4 and 6): compile-only jobs of users' kernels through a real
// kbenchd on a machine without a GPU: they run on the cpu device's executor (NVRTC and nvJitLink
// need no device). Good source gives PTX, a cubin and resources; a syntax error, an unknown
// entry, a cubin for another architecture, an oversized source and a forbidden option are
// refused with INVALID_ARGUMENT naming the problem.
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/integration/daemon.h"
#include "tests/server/auth/credentials.h"

namespace kbench::testing {
namespace {

// A row-per-block softmax in the ABI of `softmax` (in, out, rows, cols), with 1 KiB of static
// shared memory for the block reductions.
constexpr char kSoftmaxSource[] = R"(#include <cuda/std/limits>
extern "C" __global__ void softmax_kernel(const float* in, float* out, long long rows,
                                          long long cols) {
  __shared__ float partial[256];
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float m = -cuda::std::numeric_limits<float>::infinity();
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  m = partial[0];
  __syncthreads();
  float sum = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(x[c] - m);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / partial[0];
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) y[c] = __expf(x[c] - m) * inv;
}
)";

v1::JobSpec SoftmaxSpec(const std::string& source = kSoftmaxSource) {
  v1::JobSpec spec = CompileSpec("softmax", v1::USER_KERNEL_FORM_CUDA, source, "softmax_kernel");
  spec.add_shape(4096);
  spec.add_shape(4096);
  v1::UserKernel* uk = spec.mutable_user_kernels(0);
  uk->set_file_name("my_softmax.cu");
  uk->mutable_launch()->add_grid("rows");
  uk->mutable_launch()->add_block("256");
  uk->add_options("-O3");
  uk->add_options("--use_fast_math");
  return spec;
}

class CompileJob : public ::testing::Test {
 protected:
  TempDir dir_;
  Daemon daemon_{dir_.path()};
};

#ifdef KBENCH_TEST_CUDA_TOOLKIT

// The sm_90a square cubin submitted as a Triton kernel of 4 warps over cdiv(n, 128) programs;
// each test adds what the kernel was specialised for, and the shape.
v1::JobSpec TritonSquareSpec() {
  v1::JobSpec spec = CompileSpec("square", v1::USER_KERNEL_FORM_TRITON,
                                 ReadFile(KBENCH_TEST_SQUARE_SM90A_CUBIN), "square_kernel");
  v1::UserKernel* uk = spec.mutable_user_kernels(0);
  uk->mutable_launch()->add_grid("cdiv(n, 128)");
  uk->mutable_triton()->set_num_warps(4);
  return spec;
}

bool HasArtifact(const v1::Job& job, const std::string& name) {
  for (const v1::ArtifactInfo& a : job.artifacts()) {
    if (a.name() == name && a.size_bytes() > 0) return true;
  }
  return false;
}

TEST_F(CompileJob, GoodSourceGivesPtxCubinAndResourcesOnTheCpuDevice) {
  const v1::Job job = RunToEnd(daemon_, SoftmaxSpec());
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  EXPECT_EQ(job.device(), "cpu");
  const v1::CompileResult& c = job.result().compile();
  EXPECT_EQ(c.compiler(), "nvrtc");
  EXPECT_FALSE(c.compiler_version().empty());
  EXPECT_EQ(c.arch(), "sm_90a");
  EXPECT_EQ(c.module_sha256().size(), 64u);
  EXPECT_GT(c.ptx_bytes(), 0);
  EXPECT_GT(c.cubin_bytes(), 0);
  ASSERT_GE(c.kernels_size(), 1);
  const v1::KernelResources& k = c.kernels(0);
  EXPECT_EQ(k.entry(), "softmax_kernel");
  EXPECT_GT(k.registers_per_thread(), 0);
  EXPECT_EQ(k.static_shared_bytes(), 256 * 4);
  EXPECT_EQ(k.block_threads(), 256);
  EXPECT_GT(k.theoretical_occupancy(), 0);
  EXPECT_LE(k.theoretical_occupancy(), 1);
  EXPECT_FALSE(k.occupancy_limiter().empty());
  bool user_options = false;
  for (const std::string& o : c.options()) user_options |= o == "--use_fast_math";
  EXPECT_TRUE(user_options);
  EXPECT_TRUE(HasArtifact(job, "module.ptx"));
  EXPECT_TRUE(HasArtifact(job, "module.cubin"));
  EXPECT_TRUE(HasArtifact(job, "compile.log"));  // ptxas -v's report
  // The code is not echoed back; its sha256 is in the result.
  EXPECT_TRUE(job.spec().user_kernels(0).code().empty());
}

TEST_F(CompileJob, SyntaxErrorFailsAsInvalidArgumentWithTheLineNumber) {
  std::string source = kSoftmaxSource;
  source.replace(source.find("float m ="), 9, "float m = )");  // line 7
  const v1::Job job = RunToEnd(daemon_, SoftmaxSpec(source));
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(job.error_code(), "INVALID_ARGUMENT") << job.error();
  EXPECT_NE(job.error().find("my_softmax.cu(7): error"), std::string::npos) << job.error();
}

TEST_F(CompileJob, UnknownEntryFailsAsInvalidArgumentNamingIt) {
  v1::JobSpec spec = SoftmaxSpec();
  spec.mutable_user_kernels(0)->set_entry("softmax_kernal");
  const v1::Job job = RunToEnd(daemon_, spec);
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(job.error_code(), "INVALID_ARGUMENT") << job.error();
  EXPECT_NE(job.error().find("softmax_kernal"), std::string::npos) << job.error();
}

TEST_F(CompileJob, PtxCompilesWithNvJitLink) {
  v1::JobSpec spec = CompileSpec("square", v1::USER_KERNEL_FORM_PTX,
                                 ReadFile(KBENCH_TEST_SQUARE_PTX), "square_kernel");
  spec.mutable_user_kernels(0)->mutable_launch()->add_grid("cdiv(n, 256)");
  spec.mutable_user_kernels(0)->mutable_launch()->add_block("256");
  const v1::Job job = RunToEnd(daemon_, spec);
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  EXPECT_EQ(job.result().compile().compiler(), "nvjitlink");
  ASSERT_GE(job.result().compile().kernels_size(), 1);
  EXPECT_EQ(job.result().compile().kernels(0).entry(), "square_kernel");
  EXPECT_GT(job.result().compile().kernels(0).registers_per_thread(), 0);
}

TEST_F(CompileJob, CubinForTheTargetIsDescribedWithoutACompiler) {
  const v1::Job job =
      RunToEnd(daemon_, CompileSpec("square", v1::USER_KERNEL_FORM_CUBIN,
                                    ReadFile(KBENCH_TEST_SQUARE_SM90A_CUBIN), "square_kernel"));
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  EXPECT_EQ(job.result().compile().compiler(), "none");
  ASSERT_GE(job.result().compile().kernels_size(), 1);
  EXPECT_GT(job.result().compile().kernels(0).registers_per_thread(), 0);
}

TEST_F(CompileJob, CubinForAnotherArchitectureIsRefusedNamingBoth) {
  const grpc::Status s =
      SubmitStatus(daemon_, CompileSpec("square", v1::USER_KERNEL_FORM_CUBIN,
                                        ReadFile(KBENCH_TEST_SQUARE_SM80_CUBIN), "square_kernel"));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("sm_80"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("sm_90a"), std::string::npos) << s.error_message();
}

// A Triton cubin compiled with n declared divisible by 16 (tools/triton --specialize-for) is
// refused for a shape that breaks it, naming the dim, its value and the remedy.
TEST_F(CompileJob, TritonKernelSpecialisedForDivisibleDimsRefusesOtherShapes) {
  v1::JobSpec spec = TritonSquareSpec();
  spec.mutable_user_kernels(0)->mutable_triton()->add_divisible_by_16("n");
  spec.add_shape(1000);
  const grpc::Status s = SubmitStatus(daemon_, spec);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("divisible by 16"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("n = 1000"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("--specialize-for"), std::string::npos) << s.error_message();
  spec.set_shape(0, 1024);
  EXPECT_EQ(SubmitStatus(daemon_, spec).error_code(), grpc::StatusCode::OK);
}

// A Triton cubin whose dims and params are int32 (tools/triton --specialize-for, as Triton's
// JIT types them) is refused for a problem whose value does not fit: square's n is the element
// count, 2^32 for 65536x65536.
TEST_F(CompileJob, TritonKernelWithInt32ScalarsRefusesValuesPastInt32) {
  v1::JobSpec spec = TritonSquareSpec();
  spec.mutable_user_kernels(0)->mutable_triton()->set_int32_scalars(true);
  spec.add_shape(65536);
  spec.add_shape(65536);
  const grpc::Status s = SubmitStatus(daemon_, spec);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("user_kernels[0].triton.int32_scalars"), std::string::npos)
      << s.error_message();
  EXPECT_NE(s.error_message().find("n = 4294967296 does not fit"), std::string::npos)
      << s.error_message();
  spec.clear_shape();
  spec.add_shape(4096);
  spec.add_shape(4096);
  EXPECT_EQ(SubmitStatus(daemon_, spec).error_code(), grpc::StatusCode::OK);
}

#else  // a build without the CUDA toolkit

TEST_F(CompileJob, FailsSayingTheBuildHasNoCudaToolkit) {
  const v1::Job job = RunToEnd(daemon_, SoftmaxSpec());
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(job.error_code(), "FAILED_PRECONDITION") << job.error();
  EXPECT_NE(job.error().find("KBENCH_CUDA=OFF"), std::string::npos) << job.error();
}

#endif

TEST_F(CompileJob, OversizedSourceIsRefusedAtSubmit) {
  const grpc::Status s = SubmitStatus(daemon_, SoftmaxSpec(std::string((1 << 20) + 1, ' ')));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("user_kernels[0].code"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("1048576"), std::string::npos) << s.error_message();
}

TEST_F(CompileJob, ForbiddenOptionIsRefusedAtSubmitNamingIt) {
  v1::JobSpec spec = SoftmaxSpec();
  spec.mutable_user_kernels(0)->add_options("-rdc=true");
  const grpc::Status s = SubmitStatus(daemon_, spec);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("'-rdc=true'"), std::string::npos) << s.error_message();
}

TEST_F(CompileJob, BadLaunchExpressionIsRefusedAtSubmitNamingThePosition) {
  v1::JobSpec spec = SoftmaxSpec();
  spec.mutable_user_kernels(0)->mutable_launch()->set_grid(0, "cdiv(rowz, 2)");
  const grpc::Status s = SubmitStatus(daemon_, spec);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("launch.grid[0]"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("unknown name 'rowz'"), std::string::npos) << s.error_message();
}

TEST_F(CompileJob, EntryMustBeACIdentifier) {
  v1::JobSpec spec = SoftmaxSpec();
  spec.mutable_user_kernels(0)->set_entry("softmax kernel");
  const grpc::Status s = SubmitStatus(daemon_, spec);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("C identifier"), std::string::npos) << s.error_message();
}

TEST_F(CompileJob, UserKernelsInABenchmarkOnTheCpuDeviceAreRefused) {
  v1::JobSpec spec = SoftmaxSpec();
  spec.set_kind(v1::JOB_KIND_BENCHMARK);
  const grpc::Status s = SubmitStatus(daemon_, spec);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  EXPECT_NE(s.error_message().find("CUDA devices"), std::string::npos) << s.error_message();
}

}  // namespace
}  // namespace kbench::testing
