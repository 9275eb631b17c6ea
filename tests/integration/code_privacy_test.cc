// Integration (issue 24, items 3 and 5): a user's code stays with its owner, and one job cannot
// break listing for everyone. Through a real kbenchd with tokens on loopback, compile jobs really
// compiled by NVRTC on the cpu device: bob cannot download alice's PTX, cubin, SASS or compile
// log, nor read her compile error (it quotes her code), while samples stay public; a source whose
// one 200 KiB line makes a megabytes-long compile log leaves a 16 KiB error, the whole log an
// owner-only artifact, and every ListJobs and GetJob of it works; DeleteJob removes a job for its
// owner and an admin only.
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"
#include "tests/server/auth/credentials.h"

namespace kbench::testing {
namespace {

#ifdef KBENCH_TEST_CUDA_TOOLKIT

using Stub = v1::KbenchService::Stub;
using grpc::StatusCode;

// A compile job of `source` for `square` (entry square_kernel).
v1::JobSpec CompileSquare(const std::string& source) {
  return CompileSpec("square", v1::USER_KERNEL_FORM_CUDA, source, "square_kernel");
}

// A marker that is in alice's code and nowhere else.
constexpr char kSecretName[] = "alices_secret_scale_7f3a";

std::string AliceSource() {
  return absl::StrCat("__device__ float ", kSecretName,
                      " = 2.0f;\n"
                      "extern \"C\" __global__ void square_kernel(const float* x, float* y, long "
                      "long n) {\n"
                      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                      "  if (i < n) y[i] = x[i] * x[i] * ",
                      kSecretName, " * 0.5f;\n}\n");
}

class CodePrivacy : public ::testing::Test {
 protected:
  void SetUp() override {
    auth_file_ = dir_.path() + "/users.yaml";
    alice_ = MintToken(auth_file_, "alice");
    bob_ = MintToken(auth_file_, "bob");
    root_ = MintToken(auth_file_, "root", "admin");
    daemon_ = std::make_unique<Daemon>(dir_.path() + "/data",
                                       std::vector<std::string>{"--auth-file", auth_file_});
  }

  v1::Job RunAs(const std::string& token, const v1::JobSpec& spec) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = spec;
    v1::SubmitJobResponse submitted;
    const grpc::Status s = stub().SubmitJob(ContextFor(token).get(), request, &submitted);
    EXPECT_TRUE(s.ok()) << s.error_message();
    v1::Job job = submitted.job();
    for (int i = 0; i < 3000 && s.ok() && !IsTerminal(job.state()); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_TRUE(Get(token, job.id(), &job).ok());
    }
    return job;
  }

  grpc::Status Get(const std::string& token, const std::string& id, v1::Job* job,
                   bool include_code = false) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    request.set_include_code(include_code);
    v1::GetJobResponse response;
    const grpc::Status s = stub().GetJob(ContextFor(token).get(), request, &response);
    *job = response.job();
    return s;
  }

  // The artifact's bytes, or the call's status.
  grpc::Status Download(const std::string& token, const std::string& id, const std::string& name,
                        std::string* bytes) {
    v1::GetArtifactRequest request;
    request.set_job_id(id);
    request.set_name(name);
    std::unique_ptr<grpc::ClientContext> context = ContextFor(token);
    auto reader = stub().GetArtifact(context.get(), request);
    v1::GetArtifactResponse chunk;
    bytes->clear();
    while (reader->Read(&chunk)) bytes->append(chunk.data());
    return reader->Finish();
  }

  Stub& stub() { return daemon_->stub(); }

  TempDir dir_;
  std::string auth_file_, alice_, bob_, root_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(CodePrivacy, BobCannotDownloadWhatAlicesCodeCompiledTo) {
  const v1::Job job = RunAs(alice_, CompileSquare(AliceSource()));
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  ASSERT_GE(job.artifacts_size(), 2);
  for (const v1::ArtifactInfo& a : job.artifacts()) {
    SCOPED_TRACE(a.name());
    EXPECT_TRUE(a.owner_only());
    std::string bytes;
    const grpc::Status bob = Download(bob_, job.id(), a.name(), &bytes);
    EXPECT_EQ(bob.error_code(), StatusCode::PERMISSION_DENIED);
    EXPECT_NE(bob.error_message().find("alice"), std::string::npos) << bob.error_message();
    EXPECT_TRUE(bytes.empty());
    EXPECT_TRUE(Download(alice_, job.id(), a.name(), &bytes).ok());
    EXPECT_EQ(static_cast<int64_t>(bytes.size()), a.size_bytes());
    EXPECT_TRUE(Download(root_, job.id(), a.name(), &bytes).ok());
  }
  // The PTX, verbatim, names alice's variable: the thing bob must not see.
  std::string ptx;
  ASSERT_TRUE(Download(alice_, job.id(), "module.ptx", &ptx).ok());
  EXPECT_NE(ptx.find(kSecretName), std::string::npos);
}

// What `kbctl diff --explain` and `kbctl repro` re-submit: the code itself, to its owner and
// admins only; every other reply carries only its sha256.
TEST_F(CodePrivacy, GetJobIncludesTheCodeForItsOwnerAndAdminsOnly) {
  const v1::Job job = RunAs(alice_, CompileSquare(AliceSource()));
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  EXPECT_TRUE(job.spec().user_kernels(0).code().empty());
  EXPECT_EQ(job.spec().user_kernels(0).code_sha256().size(), 64u);
  v1::Job read;
  ASSERT_TRUE(Get(alice_, job.id(), &read, /*include_code=*/true).ok());
  EXPECT_EQ(read.spec().user_kernels(0).code(), AliceSource());
  ASSERT_TRUE(Get(root_, job.id(), &read, /*include_code=*/true).ok());
  EXPECT_EQ(read.spec().user_kernels(0).code(), AliceSource());
  const grpc::Status bob = Get(bob_, job.id(), &read, /*include_code=*/true);
  EXPECT_EQ(bob.error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_NE(bob.error_message().find("alice"), std::string::npos) << bob.error_message();
  EXPECT_EQ(bob.error_message().find(kSecretName), std::string::npos);
  EXPECT_TRUE(read.spec().user_kernels().empty());
  ASSERT_TRUE(Get(bob_, job.id(), &read).ok());  // without the code, anyone may
  EXPECT_TRUE(read.spec().user_kernels(0).code().empty());
  // A job of catalogue variants has no code to withhold: include_code is no refusal there.
  v1::JobSpec catalogue = QuickCpuSpec();
  const v1::Job plain = RunAs(alice_, catalogue);
  ASSERT_TRUE(Get(bob_, plain.id(), &read, /*include_code=*/true).ok());
  EXPECT_EQ(read.id(), plain.id());
}

TEST_F(CodePrivacy, ACompileErrorIsShownToItsOwnerOnly) {
  const std::string broken = absl::StrCat(AliceSource(), "int oops = ", kSecretName, "_typo;\n");
  const v1::Job job = RunAs(alice_, CompileSquare(broken));
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_NE(job.error().find(kSecretName), std::string::npos) << job.error();
  v1::Job seen_by_bob;
  ASSERT_TRUE(Get(bob_, job.id(), &seen_by_bob).ok());
  EXPECT_EQ(seen_by_bob.error().find(kSecretName), std::string::npos) << seen_by_bob.error();
  EXPECT_EQ(seen_by_bob.error_code(), job.error_code());
  v1::ListJobsResponse listed;
  ASSERT_TRUE(stub().ListJobs(ContextFor(bob_).get(), {}, &listed).ok());
  for (const v1::Job& j : listed.jobs()) {
    EXPECT_EQ(j.error().find(kSecretName), std::string::npos) << j.error();
  }
  v1::Job seen_by_root;
  ASSERT_TRUE(Get(root_, job.id(), &seen_by_root).ok());
  EXPECT_EQ(seen_by_root.error(), job.error());
}

// The red team's submit: one 200 KiB line of undefined names; NVRTC quotes the line with each
// of its errors. Before the bound the 20 MB error broke every ListJobs page holding the job.
TEST_F(CodePrivacy, AHugeCompileLogLeavesABoundedErrorAndListingWorks) {
  std::string line = "int many = 0";
  for (int i = 0; line.size() < 200 * 1024; ++i) absl::StrAppend(&line, " + undefined_", i);
  const v1::Job job = RunAs(alice_, CompileSquare(absl::StrCat(AliceSource(), line, ";\n")));
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_LE(job.error().size(), 16u * 1024);
  std::string whole;
  ASSERT_TRUE(Download(alice_, job.id(), "error.log", &whole).ok());
  EXPECT_GT(whole.size(), 16u * 1024);
  EXPECT_EQ(whole.substr(0, 1000), job.error().substr(0, 1000));
  EXPECT_NE(job.error().find("error.log"), std::string::npos);
  std::string denied;
  EXPECT_EQ(Download(bob_, job.id(), "error.log", &denied).error_code(),
            StatusCode::PERMISSION_DENIED);
  v1::ListJobsRequest full;
  full.set_view(v1::JOB_VIEW_FULL);
  v1::ListJobsResponse listed;
  const grpc::Status list = stub().ListJobs(ContextFor(bob_).get(), full, &listed);
  ASSERT_TRUE(list.ok()) << list.error_message();
  EXPECT_EQ(listed.jobs_size(), 1);
  v1::Job got;
  EXPECT_TRUE(Get(bob_, job.id(), &got).ok());
}

TEST_F(CodePrivacy, DeleteJobRemovesAFinishedJobForItsOwnerOrAnAdmin) {
  const v1::Job a = RunAs(alice_, CompileSquare(AliceSource()));
  const v1::Job b = RunAs(alice_, CompileSquare(AliceSource()));
  ASSERT_EQ(a.state(), v1::JOB_STATE_SUCCEEDED);
  v1::DeleteJobRequest request;
  request.set_job_id(a.id());
  v1::DeleteJobResponse response;
  EXPECT_EQ(stub().DeleteJob(ContextFor(bob_).get(), request, &response).error_code(),
            StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(stub().DeleteJob(ContextFor(alice_).get(), request, &response).ok());
  EXPECT_EQ(response.artifacts_removed(), a.artifacts_size());
  v1::Job gone;
  EXPECT_EQ(Get(alice_, a.id(), &gone).error_code(), StatusCode::NOT_FOUND);
  std::string bytes;
  EXPECT_EQ(Download(alice_, a.id(), "module.ptx", &bytes).error_code(), StatusCode::NOT_FOUND);
  EXPECT_EQ(stub().DeleteJob(ContextFor(alice_).get(), request, &response).error_code(),
            StatusCode::NOT_FOUND);
  request.set_job_id(b.id());
  EXPECT_TRUE(stub().DeleteJob(ContextFor(root_).get(), request, &response).ok());
}

#endif  // KBENCH_TEST_CUDA_TOOLKIT

}  // namespace
}  // namespace kbench::testing
