// GPU tests of users' own kernels (issue 10) through a real kbenchd: the catalogue's fused
// softmax pasted into a file and compared interleaved with the built-in (CUDA source, then the
// PTX and cubin the compile job produced); a faulting kernel fails only its job; a hanging one is
// killed at its deadline; `sanitize` passes the pasted kernel and fails an out-of-bounds writer
// with memcheck's report; profiles (CUPTI and Nsight Compute) of a user kernel; a registered
// cubin, kept once by the store, runs in every job that lists it. Labelled `gpu`;
// they skip without a CUDA device (and the sanitizer and ncu tests without those tools).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

// softmax/fused for f32 rows of 4096 as kernels/cuda/softmax.cu launches it: 256 threads, each
// holding 4 float4 chunks of its row in registers; block reductions through warp shuffles.
constexpr char kFusedSoftmax[] = R"(
// NVRTC has no <math.h>: INFINITY as nvcc's headers would define it.
#define INFINITY __int_as_float(0x7f800000)
__device__ float WarpMax(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float WarpSum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <bool kMax>
__device__ float BlockReduce(float v, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = kMax ? WarpMax(v) : WarpSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) / 32;
  float r = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
  r = kMax ? WarpMax(r) : WarpSum(r);
  __syncthreads();
  return r;
}
extern "C" __global__ void __launch_bounds__(256)
    softmax_fused_user(const float* __restrict__ in, float* __restrict__ out, long long rows,
                       long long cols) {
  __shared__ float scratch[32];
  const float4* x = reinterpret_cast<const float4*>(in + blockIdx.x * cols);
  float4* y = reinterpret_cast<float4*>(out + blockIdx.x * cols);
  const long long items = cols / 4;
  float4 c[4];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const long long i = threadIdx.x + k * 256LL;
    if (i < items) {
      c[k] = x[i];
      m = fmaxf(fmaxf(m, fmaxf(c[k].x, c[k].y)), fmaxf(c[k].z, c[k].w));
    }
  }
  m = BlockReduce<true>(m, scratch);
  float s = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (threadIdx.x + k * 256LL < items) {
      s += __expf(c[k].x - m) + __expf(c[k].y - m) + __expf(c[k].z - m) + __expf(c[k].w - m);
    }
  }
  s = BlockReduce<false>(s, scratch);
  const float inv = 1.0f / s;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const long long i = threadIdx.x + k * 256LL;
    if (i < items) {
      y[i] = make_float4(__expf(c[k].x - m) * inv, __expf(c[k].y - m) * inv,
                         __expf(c[k].z - m) * inv, __expf(c[k].w - m) * inv);
    }
  }
}
)";

bool HasCudaDevice(Daemon& daemon) {
  grpc::ClientContext ctx;
  v1::ListDevicesResponse resp;
  if (!daemon.stub().ListDevices(&ctx, v1::ListDevicesRequest(), &resp).ok()) return false;
  for (const v1::DeviceInfo& d : resp.devices()) {
    if (d.id() == "cuda:0") return true;
  }
  return false;
}

v1::UserKernel SoftmaxUserKernel(v1::UserKernelForm form, const std::string& code) {
  v1::UserKernel uk;
  uk.set_form(form);
  uk.set_code(code);
  uk.set_entry("softmax_fused_user");
  uk.set_file_name("fused_softmax.cu");
  uk.mutable_launch()->add_grid("rows");
  uk.mutable_launch()->add_block("256");
  return uk;
}

v1::JobSpec CompareSpec(const v1::UserKernel& uk) {
  v1::JobSpec spec;
  spec.set_kernel("softmax");
  spec.add_variants("fused");
  spec.add_variants("@user");
  spec.add_shape(4096);
  spec.add_shape(4096);
  spec.set_device("cuda:0");
  spec.mutable_stopping()->set_max_noise(0.005);
  spec.mutable_stopping()->set_timeout_seconds(20);
  *spec.add_user_kernels() = uk;
  return spec;
}

// A GPU job here compiles, loads and samples: longer than the helpers' default wait.
v1::Job RunGpuJob(Daemon& daemon, const v1::JobSpec& spec) {
  return RunToEnd(daemon, spec, std::chrono::seconds(240));
}

std::string Artifact(Daemon& daemon, const std::string& job, const std::string& name) {
  grpc::ClientContext ctx;
  v1::GetArtifactRequest req;
  req.set_job_id(job);
  req.set_name(name);
  auto reader = daemon.stub().GetArtifact(&ctx, req);
  std::string bytes;
  v1::GetArtifactResponse chunk;
  while (reader->Read(&chunk)) bytes += chunk.data();
  EXPECT_TRUE(reader->Finish().ok()) << name;
  return bytes;
}

// The user's copy of fused runs within 2% of the built-in, both checked against the reference.
void ExpectMatchesFused(const v1::Job& job, v1::UserKernelForm form) {
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  ASSERT_EQ(job.result().variants_size(), 2);
  const v1::VariantResult& fused = job.result().variants(0);
  const v1::VariantResult& user = job.result().variants(1);
  EXPECT_EQ(user.variant(), "@user");
  EXPECT_TRUE(user.correctness().passed());
  EXPECT_TRUE(user.timed_correctness().passed());
  const double ratio = user.stats().median_seconds() / fused.stats().median_seconds();
  EXPECT_LT(std::abs(ratio - 1), 0.02) << "user " << user.stats().median_seconds() << " s, fused "
                                       << fused.stats().median_seconds() << " s";
  const v1::UserModuleRecord& m = user.user_module();
  EXPECT_EQ(m.form(), form);
  EXPECT_EQ(m.module_sha256().size(), 64u);
  EXPECT_EQ(m.entry(), "softmax_fused_user");
  ASSERT_EQ(m.grid_size(), 3);
  EXPECT_EQ(m.grid(0), 4096);
  EXPECT_EQ(m.block(0), 256);
  EXPECT_GT(m.resources().registers_per_thread(), 0);
}

class UserKernelGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HasCudaDevice(daemon_)) GTEST_SKIP() << "no CUDA device";
  }
  // After a user kernel's failure the device and its executor are fine: the built-in fused
  // softmax, alone, succeeds.
  void ExpectTheNextJobSucceeds() {
    v1::JobSpec next = CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA, kFusedSoftmax));
    next.clear_user_kernels();
    next.clear_variants();
    next.add_variants("fused");
    const v1::Job ok = RunGpuJob(daemon_, next);
    EXPECT_EQ(ok.state(), v1::JOB_STATE_SUCCEEDED) << ok.error();
  }

  TempDir dir_;
  Daemon daemon_{dir_.path(), {"--executor-hang-slack", "20"}};
};

TEST_F(UserKernelGpu, PastedFusedSoftmaxMatchesTheBuiltInFromSourcePtxAndCubin) {
  ExpectMatchesFused(
      RunGpuJob(daemon_, CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA, kFusedSoftmax))),
      v1::USER_KERNEL_FORM_CUDA);
  // The same module as PTX and as a cubin, from a compile job for this device.
  v1::JobSpec compile;
  compile.set_kind(v1::JOB_KIND_COMPILE);
  compile.set_kernel("softmax");
  compile.set_device("cuda:0");
  *compile.add_user_kernels() = SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA, kFusedSoftmax);
  const v1::Job compiled = RunGpuJob(daemon_, compile);
  ASSERT_EQ(compiled.state(), v1::JOB_STATE_SUCCEEDED) << compiled.error();
  const std::string ptx = Artifact(daemon_, compiled.id(), "module.ptx");
  const std::string cubin = Artifact(daemon_, compiled.id(), "module.cubin");
  ExpectMatchesFused(
      RunGpuJob(daemon_, CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_PTX, ptx))),
      v1::USER_KERNEL_FORM_PTX);
  ExpectMatchesFused(
      RunGpuJob(daemon_, CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUBIN, cubin))),
      v1::USER_KERNEL_FORM_CUBIN);
}

// A registered cubin (over 4 KiB: the store keeps its code once, issue 24) runs in two jobs:
// each executor is handed the whole module, and each result names its hash.
TEST_F(UserKernelGpu, ARegisteredCubinRunsInEveryJobFromTheCodeKeptOnce) {
  v1::JobSpec compile;
  compile.set_kind(v1::JOB_KIND_COMPILE);
  compile.set_kernel("softmax");
  compile.set_device("cuda:0");
  *compile.add_user_kernels() = SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA, kFusedSoftmax);
  const v1::Job compiled = RunGpuJob(daemon_, compile);
  ASSERT_EQ(compiled.state(), v1::JOB_STATE_SUCCEEDED) << compiled.error();
  const std::string cubin = Artifact(daemon_, compiled.id(), "module.cubin");
  ASSERT_GT(cubin.size(), 4096u);
  v1::AddVariantRequest add;
  add.set_operation("softmax");
  *add.mutable_kernel() = SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUBIN, cubin);
  add.mutable_kernel()->set_name("@fused_cubin");
  grpc::ClientContext ctx;
  v1::AddVariantResponse added;
  const grpc::Status registered = daemon_.stub().AddVariant(&ctx, add, &added);
  ASSERT_TRUE(registered.ok()) << registered.error_message();
  for (int run = 0; run < 2; ++run) {
    v1::JobSpec spec = CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUBIN, cubin));
    spec.clear_user_kernels();
    spec.set_variants(1, "@fused_cubin");
    const v1::Job job = RunGpuJob(daemon_, spec);
    ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
    ASSERT_EQ(job.result().variants_size(), 2);
    const v1::VariantResult& user = job.result().variants(1);
    EXPECT_EQ(user.variant(), "@fused_cubin");
    EXPECT_TRUE(user.correctness().passed());
    EXPECT_EQ(user.user_module().module_sha256(), added.variant().sha256());
    EXPECT_EQ(job.spec().user_kernels(0).code_sha256(), added.variant().sha256());
  }
}

TEST_F(UserKernelGpu, FaultingKernelFailsOnlyItsJobAndTheNextJobSucceeds) {
  v1::UserKernel uk = SoftmaxUserKernel(
      v1::USER_KERNEL_FORM_CUDA,
      R"(extern "C" __global__ void softmax_fused_user(const float* in, float* out, long long rows,
                                                      long long cols) {
           float* nowhere = reinterpret_cast<float*>(0x10);
           nowhere[threadIdx.x] = in[0];
         })");
  v1::JobSpec spec = CompareSpec(uk);
  spec.clear_variants();
  spec.add_variants("@user");
  const v1::Job failed = RunGpuJob(daemon_, spec);
  ASSERT_EQ(failed.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(failed.error().find("cudaError"), std::string::npos) << failed.error();
  ExpectTheNextJobSucceeds();
}

TEST_F(UserKernelGpu, HangingKernelIsKilledAtItsDeadline) {
  v1::UserKernel uk = SoftmaxUserKernel(
      v1::USER_KERNEL_FORM_CUDA,
      R"(extern "C" __global__ void softmax_fused_user(const float* in, float* out, long long rows,
                                                      long long cols) {
           volatile int spin = 1;
           while (spin) {}
         })");
  v1::JobSpec spec = CompareSpec(uk);
  spec.clear_variants();
  spec.add_variants("@user");
  spec.mutable_stopping()->set_timeout_seconds(2);
  const auto start = std::chrono::steady_clock::now();
  const v1::Job hung = RunGpuJob(daemon_, spec);
  EXPECT_EQ(hung.state(), v1::JOB_STATE_FAILED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(120));
  ExpectTheNextJobSucceeds();
}

// Issue 10, item 6: `sanitize` runs the user kernel under compute-sanitizer's memcheck first.
bool HasComputeSanitizer() {
  const char* explicit_path = std::getenv("KBENCH_COMPUTE_SANITIZER");
  return access(explicit_path != nullptr ? explicit_path : "/usr/local/cuda/bin/compute-sanitizer",
                X_OK) == 0;
}

TEST_F(UserKernelGpu, SanitizedPastedSoftmaxHasNoMemoryErrorAndKeepsTheReport) {
  if (!HasComputeSanitizer()) GTEST_SKIP() << "no compute-sanitizer";
  v1::JobSpec spec = CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA, kFusedSoftmax));
  spec.set_sanitize(true);
  const v1::Job job = RunGpuJob(daemon_, spec);
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  const v1::SanitizerRecord& san = job.result().variants(1).user_module().sanitizer();
  EXPECT_EQ(san.tool(), "memcheck");
  EXPECT_EQ(san.errors(), 0);
  EXPECT_EQ(san.report_artifact(), "memcheck_user.txt");
  EXPECT_GT(san.seconds(), 0);
  const std::string report = Artifact(daemon_, job.id(), "memcheck_user.txt");
  EXPECT_NE(report.find("ERROR SUMMARY: 0 errors"), std::string::npos) << report;
  std::printf("RESULT sanitize clean: memcheck %.1f s\n", san.seconds());
}

TEST_F(UserKernelGpu, SanitizeFailsAKernelThatWritesOutOfBoundsAndKeepsTheReport) {
  if (!HasComputeSanitizer()) GTEST_SKIP() << "no compute-sanitizer";
  // Correct output, plus one write far past the end of `out`.
  v1::UserKernel uk =
      SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA,
                        R"(#define INFINITY __int_as_float(0x7f800000)  // NVRTC has no math.h
         extern "C" __global__ void softmax_fused_user(const float* in, float* out, long long rows,
                                                      long long cols) {
           const long long r = blockIdx.x;
           float m = -INFINITY, s = 0;
           for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[r * cols + c]);
           __shared__ float red[256];
           red[threadIdx.x] = m; __syncthreads();
           for (int k = 128; k > 0; k /= 2) {
             if (threadIdx.x < k) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + k]);
             __syncthreads();
           }
           m = red[0]; __syncthreads();
           for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(in[r * cols + c] - m);
           red[threadIdx.x] = s; __syncthreads();
           for (int k = 128; k > 0; k /= 2) {
             if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
             __syncthreads();
           }
           s = red[0];
           for (long long c = threadIdx.x; c < cols; c += blockDim.x)
             out[r * cols + c] = __expf(in[r * cols + c] - m) / s;
           if (r == 0 && threadIdx.x == 0) out[rows * cols * 64] = 0.0f;
         })");
  v1::JobSpec spec = CompareSpec(uk);
  spec.clear_variants();
  spec.add_variants("@user");
  spec.set_sanitize(true);
  const v1::Job job = RunGpuJob(daemon_, spec);
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(job.error_code(), "FAILED_PRECONDITION") << job.error();
  EXPECT_NE(job.error().find("sanitize: compute-sanitizer memcheck found"), std::string::npos)
      << job.error();
  EXPECT_NE(job.error().find("Invalid __global__ write"), std::string::npos) << job.error();
  const std::string report = Artifact(daemon_, job.id(), "memcheck_user.txt");
  EXPECT_NE(report.find("Invalid __global__ write"), std::string::npos) << report;
  std::printf("RESULT sanitize out-of-bounds: %s\n", job.error().c_str());
  ExpectTheNextJobSucceeds();
}

// Issue 10, item 7: a user variant profiles like a catalogue variant.
TEST_F(UserKernelGpu, ProfileOfAUserKernelTracesItBesideTheBuiltIn) {
  v1::JobSpec spec = CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA, kFusedSoftmax));
  spec.set_kind(v1::JOB_KIND_PROFILE);
  spec.clear_stopping();
  spec.mutable_profile()->set_iterations(20);
  const v1::Job job = RunGpuJob(daemon_, spec);
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  ASSERT_EQ(job.result().variants_size(), 2);
  const v1::VariantResult& fused = job.result().variants(0);
  const v1::VariantResult& user = job.result().variants(1);
  EXPECT_EQ(user.variant(), "@user");
  EXPECT_TRUE(user.correctness().passed());
  EXPECT_EQ(user.stats().samples(), 20);
  // The same kernel: one iteration's GPU time within 5% (20 traced launches, not a benchmark).
  EXPECT_NEAR(user.stats().median_seconds() / fused.stats().median_seconds(), 1.0, 0.05);
  const std::string trace = Artifact(daemon_, job.id(), "trace.json");
  EXPECT_NE(trace.find("softmax_fused_user"), std::string::npos);
  std::printf("RESULT profile: fused %.2f us, @user %.2f us per iteration\n",
              fused.stats().median_seconds() * 1e6, user.stats().median_seconds() * 1e6);
}

TEST_F(UserKernelGpu, NsightComputeProfilesAUserKernel) {
  const char* ncu = std::getenv("KBENCH_NCU");
  if (access(ncu != nullptr ? ncu : "/usr/local/cuda/bin/ncu", X_OK) != 0) {
    GTEST_SKIP() << "no ncu";
  }
  v1::JobSpec spec = CompareSpec(SoftmaxUserKernel(v1::USER_KERNEL_FORM_CUDA, kFusedSoftmax));
  spec.set_kind(v1::JOB_KIND_PROFILE);
  spec.clear_stopping();
  spec.clear_variants();
  spec.add_variants("@user");
  spec.mutable_profile()->set_iterations(3);
  spec.mutable_profile()->set_ncu(true);
  const v1::Job job = RunGpuJob(daemon_, spec);
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  ASSERT_GT(job.result().profile().ncu_size(), 0);
  const v1::NcuMetrics& m = job.result().profile().ncu(0);
  EXPECT_NE(m.kernel().find("softmax_fused_user"), std::string::npos) << m.kernel();
  EXPECT_GT(m.duration_seconds(), 0);
  std::printf("RESULT ncu @user: %s %.2f us\n", m.kernel().c_str(), m.duration_seconds() * 1e6);
}

}  // namespace
}  // namespace kbench::testing
