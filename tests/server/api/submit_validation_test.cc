// Submit-time validation: defaults filled in, device fit, memory limits.
#include "server/api/submit_validation.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace kbench::api {
namespace {

v1::DeviceInfo Cpu() {
  v1::DeviceInfo d;
  d.set_id("cpu");
  d.set_kind(v1::DEVICE_KIND_CPU);
  return d;
}

v1::DeviceInfo Gpu(int64_t memory) {
  v1::DeviceInfo d;
  d.set_id("cuda:0");
  d.set_kind(v1::DEVICE_KIND_CUDA);
  d.set_memory_bytes(memory);
  d.set_l2_bytes(50 << 20);
  return d;
}

v1::JobSpec Spec(const std::string& kernel, const std::string& variant) {
  v1::JobSpec s;
  s.set_kernel(kernel);
  s.add_variants(variant);
  return s;
}

TEST(ValidateAndNormalize, FillsDefaultsForAMinimalSpec) {
  v1::JobSpec s = Spec("softmax", "host_rowwise");
  s.add_shape(64);
  s.add_shape(32);
  ASSERT_TRUE(ValidateAndNormalize(Cpu(), {}, &s).ok());
  EXPECT_EQ(s.kind(), v1::JOB_KIND_BENCHMARK);
  EXPECT_EQ(s.dtype(), v1::DTYPE_F32);
}

// Issue 23, item 7: kbenchd fixes a ranked run's protocol.
TEST(ValidateAndNormalize, FixesARankedRunsProtocol) {
  v1::JobSpec s = Spec("softmax", "host_rowwise");
  s.add_shape(64);
  s.add_shape(32);
  s.set_ranked(true);
  ASSERT_TRUE(ValidateAndNormalize(Cpu(), {}, &s).ok());
  EXPECT_EQ(s.mode(), v1::MEASURE_MODE_COLD);
  EXPECT_EQ(s.placements(), 8);
  s.set_placements(12);
  ASSERT_TRUE(ValidateAndNormalize(Cpu(), {}, &s).ok());
  EXPECT_EQ(s.placements(), 12);
}

TEST(ValidateAndNormalize, RefusesARankedRunThatEasesItsProtocolNamingTheField) {
  const auto refused = [](void (*ease)(v1::JobSpec*), const std::string& field) {
    v1::JobSpec s = Spec("softmax", "host_rowwise");
    s.add_shape(64);
    s.add_shape(32);
    s.set_ranked(true);
    ease(&s);
    const absl::Status st = ValidateAndNormalize(Cpu(), {}, &s);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << field << ": " << st;
    EXPECT_EQ(st.message().substr(0, field.size() + 1), field + ":") << st;
  };
  refused([](v1::JobSpec* s) { s->set_seed(5); }, "seed");
  refused([](v1::JobSpec* s) { s->set_mode(v1::MEASURE_MODE_HOT); }, "mode");
  refused([](v1::JobSpec* s) { s->set_placements(4); }, "placements");
  refused([](v1::JobSpec* s) { s->mutable_stopping()->set_min_time_seconds(0.01); }, "stopping");
  refused([](v1::JobSpec* s) { s->set_kind(v1::JOB_KIND_PROFILE); }, "ranked");
}

TEST(ValidateAndNormalize, RejectsAnEmptyShapeNamingTheDims) {
  v1::JobSpec s = Spec("softmax", "host_rowwise");
  const absl::Status st = ValidateAndNormalize(Cpu(), {}, &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("shape: must be given"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("rows x cols"), std::string::npos) << st.message();
}

TEST(ValidateAndNormalize, RejectsVariantOnTheWrongDeviceKind) {
  v1::JobSpec s = Spec("softmax", "fused");
  s.add_shape(8);
  s.add_shape(8);
  const absl::Status st = ValidateAndNormalize(Cpu(), {}, &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("fused"), std::string::npos);
  v1::JobSpec h = Spec("softmax", "host_rowwise");
  h.add_shape(8);
  h.add_shape(8);
  EXPECT_EQ(ValidateAndNormalize(Gpu(80LL << 30), {}, &h).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ValidateAndNormalize, RefusesProblemsLargerThanTheDevice) {
  v1::JobSpec s = Spec("copy", "vectorized");
  s.add_shape(int64_t{1} << 20);
  s.add_shape(int64_t{1} << 15);  // 2^35 floats in + out = 256 GiB
  const absl::Status st = ValidateAndNormalize(Gpu(80LL << 30), {}, &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(st.message().find("cuda:0"), std::string::npos);
}

TEST(ValidateAndNormalize, RejectsDuplicateVariantsAndBadStopping) {
  v1::JobSpec s = Spec("add", "host_loop");
  s.add_shape(16);
  s.add_variants("host_loop");
  EXPECT_EQ(ValidateAndNormalize(Cpu(), {}, &s).code(), absl::StatusCode::kInvalidArgument);
  v1::JobSpec t = Spec("add", "host_loop");
  t.add_shape(16);
  t.mutable_stopping()->set_timeout_seconds(1e9);
  const absl::Status st = ValidateAndNormalize(Cpu(), {}, &t);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("stopping.timeout_seconds"), std::string::npos);
}

TEST(ValidateAndNormalize, ProfileNeedsACudaDevice) {
  v1::JobSpec s = Spec("softmax", "host_rowwise");
  s.add_shape(8);
  s.add_shape(8);
  s.set_kind(v1::JOB_KIND_PROFILE);
  EXPECT_EQ(ValidateAndNormalize(Cpu(), {}, &s).code(), absl::StatusCode::kFailedPrecondition);
}

// Issue 12: copy f32 65536x65536 fits an 80 GiB GPU, but its float64 check needs 160 GiB of
// host memory (inputs, outputs read back, reference, and the two compared copies).
TEST(ValidateAndNormalize, RefusesAProblemWhoseHostCheckExceedsTheHostLimitWithTheNumbers) {
  v1::JobSpec s = Spec("copy", "cuda_memcpy");
  s.add_shape(65536);
  s.add_shape(65536);
  SubmitLimits limits;
  limits.host_check_max_bytes = int64_t{64} << 30;
  const absl::Status st = ValidateAndNormalize(Gpu(int64_t{80} << 30), limits, &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted) << st;
  EXPECT_NE(st.message().find("160.00 GiB of host memory"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("64.00 GiB (--host-check-max-bytes)"), std::string::npos)
      << st.message();
}

TEST(ValidateAndNormalize, AcceptsTheSameProblemWhenTheHostHasRoom) {
  v1::JobSpec s = Spec("copy", "cuda_memcpy");
  s.add_shape(65536);
  s.add_shape(65536);
  SubmitLimits limits;
  limits.host_check_max_bytes = int64_t{200} << 30;
  EXPECT_TRUE(ValidateAndNormalize(Gpu(int64_t{80} << 30), limits, &s).ok());
}

TEST(ValidateAndNormalize, CountsTheCpuDevicesOwnBuffersBesideItsCheck) {
  v1::JobSpec s = Spec("copy", "host_memcpy");
  s.add_shape(1 << 20);
  SubmitLimits limits;
  limits.cpu_max_bytes = int64_t{1} << 40;
  // Check: 8 B x (1 Mi in + 4 x 1 Mi out) = 40 MiB; buffers: 8 MiB of f32.
  limits.host_check_max_bytes = (int64_t{40} << 20) + (int64_t{8} << 20) - 1;
  EXPECT_EQ(ValidateAndNormalize(Cpu(), limits, &s).code(), absl::StatusCode::kResourceExhausted);
  limits.host_check_max_bytes += 1;
  EXPECT_TRUE(ValidateAndNormalize(Cpu(), limits, &s).ok());
}

// Issue 10, item 6: `sanitize` runs user kernels under compute-sanitizer before a benchmark.
TEST(ValidateAndNormalize, SanitizeNeedsAUserKernel) {
  v1::JobSpec s = Spec("softmax", "fused");
  s.add_shape(64);
  s.add_shape(64);
  s.set_sanitize(true);
  const absl::Status status = ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &s);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("sanitize: checks user kernels and this job has none"),
            std::string::npos)
      << status;
}

TEST(ValidateAndNormalize, SanitizeIsForBenchmarks) {
  v1::JobSpec s = Spec("softmax", "@mine");
  s.add_shape(64);
  s.add_shape(64);
  s.set_kind(v1::JOB_KIND_PROFILE);
  s.set_sanitize(true);
  s.add_user_kernels()->set_name("@mine");
  const absl::Status status = ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &s);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("sanitize: applies to benchmarks"), std::string::npos) << status;
}

// JobSpec.placements: copies of a benchmark's buffers at several addresses.
TEST(ValidateAndNormalize, PlacementsAreBoundedAndForBenchmarks) {
  v1::JobSpec s = Spec("softmax", "fused");
  s.add_shape(64);
  s.add_shape(64);
  for (int bad : {-1, 17}) {
    s.set_placements(bad);
    const absl::Status status = ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &s);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(status.message().find(absl::StrCat("placements: ", bad, " is outside [0, 16]")),
              std::string::npos)
        << status;
  }
  s.set_placements(16);
  EXPECT_TRUE(ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &s).ok());
  s.set_placements(2);
  s.set_kind(v1::JOB_KIND_PROFILE);
  const absl::Status status = ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &s);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("placements: applies to benchmarks"), std::string::npos)
      << status;
}

TEST(ValidateAndNormalize, EveryPlacementCountsTowardsDeviceMemory) {
  // softmax 16384 x 16384 f32: 2 GiB of tensors. One copy fits 8 GiB; four do not.
  v1::JobSpec s = Spec("softmax", "fused");
  s.add_shape(16384);
  s.add_shape(16384);
  EXPECT_TRUE(ValidateAndNormalize(Gpu(int64_t{8} << 30), {}, &s).ok());
  s.set_placements(4);
  const absl::Status status = ValidateAndNormalize(Gpu(int64_t{8} << 30), {}, &s);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_NE(status.message().find("1 variant(s) at 4 placements each"), std::string::npos)
      << status;
}

// Issue 30: a collective holds one device per rank; its memory is one rank's at the gang's size.
TEST(ValidateAndNormalize, TakesACollectiveOnTwoDevicesAndSaysWhatAMultiGpuAskCannotBe) {
  v1::JobSpec s = Spec("all_reduce", "nccl");
  s.add_shape(1000003);
  s.add_devices("cuda:0");
  s.add_devices("cuda:1");
  absl::Status ok = ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &s);
  EXPECT_TRUE(ok.ok()) << ok;

  v1::JobSpec one = Spec("all_reduce", "nccl");
  one.add_shape(1024);
  absl::Status lonely = ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &one);
  EXPECT_EQ(lonely.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(lonely.message().find("at least 2 devices"), std::string::npos) << lonely;

  v1::JobSpec softmax = Spec("softmax", "fused");
  softmax.add_shape(64);
  softmax.add_shape(64);
  softmax.add_devices("cuda:0");
  softmax.add_devices("cuda:1");
  absl::Status several = ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &softmax);
  EXPECT_EQ(several.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(several.message().find("runs on one device"), std::string::npos) << several;
  EXPECT_NE(several.message().find("all_reduce"), std::string::npos) << several;

  v1::JobSpec huge = s;
  huge.set_shape(0, int64_t{1} << 31);
  EXPECT_FALSE(ValidateAndNormalize(Gpu(int64_t{8} << 30), {}, &huge).ok());

  v1::JobSpec ranked = s;
  ranked.set_ranked(true);
  EXPECT_FALSE(ValidateAndNormalize(Gpu(int64_t{80} << 30), {}, &ranked).ok());
}

}  // namespace
}  // namespace kbench::api
