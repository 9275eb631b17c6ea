// The request kbctl repro submits: the stored spec with kbenchd's own fields cleared, the code
// filled in, the seed policy kept unless --same-seed, and the device model held.
#include "client/repro/repro_request.h"

#include "gtest/gtest.h"

namespace kbench::client {
namespace {

ReproSource StoredJob() {
  ReproSource source;
  v1::Job& job = source.job;
  job.set_id("j-0000000000000001");
  job.set_device("cuda:0");
  job.mutable_spec()->set_kernel("softmax");
  job.mutable_spec()->add_variants("fused");
  job.mutable_spec()->add_variants("@mine");
  job.mutable_spec()->set_device("cuda:any");
  job.mutable_spec()->add_code_owners("alice");
  job.mutable_spec()->set_confirms_job("j-00000000000000ff");
  v1::UserKernel* own = job.mutable_spec()->add_user_kernels();
  own->set_name("@user");
  own->set_code_sha256("abc");
  job.mutable_spec()->add_user_kernels()->set_name("@mine");  // registered, resolved at submit
  job.mutable_result()->mutable_environment()->set_seed(42);
  job.mutable_result()->mutable_environment()->set_device_name("NVIDIA H100 80GB HBM3");
  source.code["@user"] = "__global__ void k() {}";
  return source;
}

TEST(ReproRequest, KeepsTheSpecOnTheJobsDeviceWithTheCodeFilledIn) {
  absl::StatusOr<v1::SubmitJobRequest> r =
      ReproRequest(StoredJob(), {.device = "", .same_seed = false, .owner = "bob"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec().device(), "cuda:0");  // the device it ran on, not cuda:any
  EXPECT_EQ(r->spec().owner(), "bob");
  EXPECT_EQ(r->spec().seed(), 0u);  // the spec's policy: a fresh seed
  EXPECT_TRUE(r->spec().code_owners().empty());
  EXPECT_TRUE(r->spec().confirms_job().empty());
  ASSERT_EQ(r->spec().user_kernels_size(), 1);  // @mine is left to kbenchd to resolve
  EXPECT_EQ(r->spec().user_kernels(0).code(), "__global__ void k() {}");
  EXPECT_EQ(r->spec().variants_size(), 2);
}

TEST(ReproRequest, SameSeedReusesTheRecordedSeed) {
  absl::StatusOr<v1::SubmitJobRequest> r =
      ReproRequest(StoredJob(), {.device = "cuda:1", .same_seed = true, .owner = ""});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->spec().seed(), 42u);
  EXPECT_EQ(r->spec().device(), "cuda:1");
}

TEST(ReproRequest, RefusesAnotherDeviceModel) {
  v1::DeviceInfo a100;
  a100.set_id("cuda:1");
  a100.set_name("NVIDIA A100-SXM4-80GB");
  absl::Status status = CheckSameModel(StoredJob().job, a100);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("ran on a NVIDIA H100 80GB HBM3; cuda:1 is a NVIDIA A100"),
            std::string::npos)
      << status;
  v1::DeviceInfo h100 = a100;
  h100.set_name("NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(CheckSameModel(StoredJob().job, h100).ok());
}

}  // namespace
}  // namespace kbench::client
