// Integration: every kind of bad input gets the right gRPC code and a message naming the
// field, nothing is stored, and the daemon keeps serving.
#include "gtest/gtest.h"
#include "server/api/request_limits.h"
#include "tests/hostile_names.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

class BadInputTest : public ::testing::Test {
 protected:
  // Submits and expects `code` with `needle` in the message.
  void ExpectRejected(const v1::JobSpec& spec, grpc::StatusCode code, const std::string& needle) {
    grpc::ClientContext ctx;
    v1::SubmitJobRequest req;
    *req.mutable_spec() = spec;
    v1::SubmitJobResponse resp;
    const grpc::Status s = daemon_.stub().SubmitJob(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), code) << s.error_message();
    EXPECT_NE(s.error_message().find(needle), std::string::npos)
        << "message '" << s.error_message() << "' does not name '" << needle << "'";
  }

  int StoredJobs() {
    grpc::ClientContext ctx;
    v1::ListJobsRequest req;
    v1::ListJobsResponse resp;
    EXPECT_TRUE(daemon_.stub().ListJobs(&ctx, req, &resp).ok());
    return resp.jobs_size();
  }

  TempDir dir_;
  Daemon daemon_{dir_.path(), {"--cpu-max-bytes", "100000000"}};
};

TEST_F(BadInputTest, RejectsMalformedSpecsWithoutStoringThem) {
  v1::JobSpec s = QuickCpuSpec();
  s.set_kernel("sqaure");
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "sqaure");

  s = QuickCpuSpec();
  s.set_kernel("");
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "kernel");

  s = QuickCpuSpec();
  s.set_variants(0, "warp_magic");
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "warp_magic");

  s = QuickCpuSpec();
  s.clear_variants();
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "variants");

  s = QuickCpuSpec();
  s.set_device("cuda:7");
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "cuda:7");

  s = QuickCpuSpec();
  s.clear_shape();
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "shape: must be given");

  s = QuickCpuSpec();
  s.set_shape(0, 0);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "must be positive");

  s = QuickCpuSpec();
  s.set_shape(1, -5);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "-5");

  s = QuickCpuSpec();
  s.clear_shape();
  for (int i = 0; i < 3; ++i) s.add_shape(int64_t{1} << 30);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "shape");

  s = QuickCpuSpec();
  s.set_kernel("softmax");
  s.set_variants(0, "host_rowwise");
  s.clear_shape();
  s.add_shape(7);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "2 dims");

  s = QuickCpuSpec();
  s.set_dtype(v1::DTYPE_BF16);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "bf16");

  s = QuickCpuSpec();
  s.set_variants(0, "vectorized");  // a CUDA variant on the cpu device
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "vectorized");

  s = QuickCpuSpec();
  s.mutable_stopping()->set_max_noise(-1);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "stopping.max_noise");

  s = QuickCpuSpec();
  s.set_mode(v1::MEASURE_MODE_GRAPH);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "graph");

  s = QuickCpuSpec();
  s.set_kind(v1::JOB_KIND_PROFILE);
  ExpectRejected(s, grpc::StatusCode::FAILED_PRECONDITION, "profile");

  // Larger than the configured cpu cap (100 MB): 8192^2 f32 in + out, with the reference.
  s = QuickCpuSpec();
  s.set_shape(0, 8192);
  s.set_shape(1, 8192);
  ExpectRejected(s, grpc::StatusCode::RESOURCE_EXHAUSTED, "--cpu-max-bytes");

  grpc::ClientContext ctx;
  v1::SubmitJobRequest empty;
  v1::SubmitJobResponse resp;
  EXPECT_EQ(daemon_.stub().SubmitJob(&ctx, empty, &resp).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);

  EXPECT_EQ(StoredJobs(), 0);
  // Still serving.
  absl::StatusOr<v1::Job> ok = Submit(daemon_.stub(), QuickCpuSpec());
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(WatchToEnd(daemon_.stub(), ok->id()).back().state(), v1::JOB_STATE_SUCCEEDED);
}

// Issue 30: a multi-GPU ask on a host without GPUs, and multi-device asks that cannot be, are
// refused naming what is wrong; kbctl says so through its exit code; nothing is stored.
TEST_F(BadInputTest, MultiGpuAsksThatCannotRunAreRefusedNamingWhy) {
  v1::JobSpec s = QuickCpuSpec();
  s.set_gpus(2);
  ExpectRejected(s, grpc::StatusCode::FAILED_PRECONDITION, "no ready CUDA device");
  s = QuickCpuSpec();
  s.add_devices("cpu");
  s.add_devices("cuda:0");
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "'cpu' is not one CUDA device");
  s = QuickCpuSpec();
  s.add_devices("cuda:0");
  s.set_gpus(2);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "not both");
  s = QuickCpuSpec();
  s.set_gpus(-5);
  ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "gpus: -5");
  EXPECT_EQ(StoredJobs(), 0);

  const KbctlRun both =
      RunKbctl(daemon_.address(),
               "bench square --variant host_loop --devices cuda:0,cuda:1 --gpus 2", dir_.path());
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.err.find("--devices, --gpus: give one"), std::string::npos) << both.err;
  const KbctlRun none = RunKbctl(
      daemon_.address(), "bench square --variant host_loop --gpus 2 --no-wait", dir_.path());
  EXPECT_NE(none.exit_code, 0);
  EXPECT_NE(none.err.find("no ready CUDA device"), std::string::npos) << none.err;
  const KbctlRun word =
      RunKbctl(daemon_.address(), "bench square --variant host_loop --gpus many", dir_.path());
  EXPECT_NE(word.exit_code, 0);
  EXPECT_NE(word.err.find("--gpus"), std::string::npos) << word.err;
}

TEST_F(BadInputTest, UnknownJobsAndBadPageTokensAreNamed) {
  grpc::ClientContext ctx;
  v1::GetJobRequest req;
  req.set_job_id("j-0000000000000000");
  v1::GetJobResponse resp;
  grpc::Status s = daemon_.stub().GetJob(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(s.error_message().find("j-0000000000000000"), std::string::npos);

  grpc::ClientContext lctx;
  v1::ListJobsRequest lreq;
  lreq.set_page_token("not-a-token!");
  v1::ListJobsResponse lresp;
  s = daemon_.stub().ListJobs(&lctx, lreq, &lresp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("page_token"), std::string::npos);

  grpc::ClientContext wctx;
  v1::WatchJobRequest wreq;
  wreq.set_job_id("j-missing");
  auto reader = daemon_.stub().WatchJob(&wctx, wreq);
  v1::WatchJobResponse wresp;
  EXPECT_FALSE(reader->Read(&wresp));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::NOT_FOUND);

  grpc::ClientContext actx;
  v1::GetArtifactRequest areq;
  areq.set_job_id("j-missing");
  areq.set_name("trace.json");
  auto areader = daemon_.stub().GetArtifact(&actx, areq);
  v1::GetArtifactResponse aresp;
  EXPECT_FALSE(areader->Read(&aresp));
  EXPECT_EQ(areader->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
}

// Issue 12: an oversized id or name is refused naming the field, with a message that quotes
// only a short prefix (a whole 1 MiB value would exceed the client's metadata limit).
TEST_F(BadInputTest, OversizedIdsAndNamesAreRefusedWithAShortMessage) {
  // Under the 64 KiB a non-upload request may take (server/api/message_limits.h), so that the
  // field's own cap answers; the request over it is refused before parsing (the next test).
  const std::string huge(4 << 10, 'j');
  grpc::ClientContext ctx;
  v1::GetJobRequest req;
  req.set_job_id(huge);
  v1::GetJobResponse resp;
  grpc::Status s = daemon_.stub().GetJob(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("job_id"), std::string::npos) << s.error_message();
  EXPECT_LT(s.error_message().size(), 200u);

  grpc::ClientContext wctx;
  v1::WatchJobRequest wreq;
  wreq.set_job_id(huge);
  auto reader = daemon_.stub().WatchJob(&wctx, wreq);
  v1::WatchJobResponse wresp;
  EXPECT_FALSE(reader->Read(&wresp));
  s = reader->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(s.error_message().size(), 200u);

  grpc::ClientContext actx;
  v1::GetArtifactRequest areq;
  areq.set_job_id("j-missing");
  areq.set_name(huge);
  auto areader = daemon_.stub().GetArtifact(&actx, areq);
  v1::GetArtifactResponse aresp;
  EXPECT_FALSE(areader->Read(&aresp));
  s = areader->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("name"), std::string::npos) << s.error_message();

  grpc::ClientContext lctx;
  v1::ListJobsRequest lreq;
  lreq.set_kernel(huge);
  v1::ListJobsResponse lresp;
  s = daemon_.stub().ListJobs(&lctx, lreq, &lresp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(s.error_message().size(), 200u);
  EXPECT_EQ(StoredJobs(), 0);
}

// Issue 24, item 2: a user variant's name becomes a plot label, HTML and CSV cells and part of a
// file name, so kbenchd refuses one outside the rule over gRPC too, whatever the device.
TEST_F(BadInputTest, HostileVariantNamesAreRefusedNamingTheFieldAndTheRule) {
  for (const std::string& name : HostileNames(dir_.path() + "/ran")) {
    v1::JobSpec s = QuickCpuSpec();
    s.add_user_kernels()->set_name(name);
    ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "user_kernels[0].name: ");
    if (name.size() > api::kMaxNameBytes) continue;  // a variant that long is refused for its size
    s = QuickCpuSpec();
    s.add_variants(name);
    ExpectRejected(s, grpc::StatusCode::INVALID_ARGUMENT, "letters, digits, '_', '-' or '.'");
  }
  EXPECT_EQ(StoredJobs(), 0);
}

TEST_F(BadInputTest, ANonUploadRequestOverItsLimitIsRefusedBeforeParsingNamingTheLimit) {
  // ...and its largest field, read in place.
  const std::string huge(1 << 20, 'j');
  grpc::ClientContext ctx;
  v1::GetJobRequest req;
  req.set_job_id(huge);
  v1::GetJobResponse resp;
  grpc::Status s = daemon_.stub().GetJob(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("limit of 65536 bytes"), std::string::npos) << s.error_message();
  EXPECT_LT(s.error_message().size(), 200u);

  grpc::ClientContext lctx;
  v1::ListJobsRequest lreq;
  lreq.set_kernel(huge);
  v1::ListJobsResponse lresp;
  s = daemon_.stub().ListJobs(&lctx, lreq, &lresp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("ListJobs request is"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("; the largest field is kernel (1048580 bytes)"),
            std::string::npos)
      << s.error_message();
  EXPECT_EQ(StoredJobs(), 0);
}

}  // namespace
}  // namespace kbench::testing
