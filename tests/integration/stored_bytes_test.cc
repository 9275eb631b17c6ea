// Integration (issue 24, item 8): each owner's bound on stored bytes, through a real kbenchd with
// tokens on loopback (--default-max-stored-bytes 2500000). Bob submits compile jobs whose CUDA
// source is 900 kB until a submit, and then a registration, is refused RESOURCE_EXHAUSTED
// naming the limit, what he keeps and how to free it; removing a finished job (kbctl jobs rm)
// frees its bytes and the next submit is accepted. Alice, who keeps her own bytes, is never
// refused.
#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/auth/credentials.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMaxStoredBytes = 2'500'000;
constexpr size_t kSourceBytes = 900'000;

// A square kernel followed by a comment that makes its source kSourceBytes long.
std::string LargeSource() {
  std::string source =
      "extern \"C\" __global__ void sq(const float* x, float* y, long long n) {\n"
      "  const long long i = blockIdx.x * 256LL + threadIdx.x;\n"
      "  if (i < n) y[i] = x[i] * x[i];\n"
      "}\n";
  while (source.size() < kSourceBytes) source += "// padding that a user's code might carry\n";
  source.resize(kSourceBytes - 1);
  return source + "\n";
}

class StoredBytesQuota : public ::testing::Test {
 protected:
  void SetUp() override {
    auth_file_ = dir_.path() + "/users.yaml";
    alice_ = MintToken(auth_file_, "alice");
    bob_ = MintToken(auth_file_, "bob");
    daemon_ = std::make_unique<Daemon>(
        dir_.path() + "/data",
        std::vector<std::string>{"--auth-file", auth_file_, "--default-max-stored-bytes",
                                 std::to_string(kMaxStoredBytes)});
  }

  grpc::Status SubmitAs(const std::string& token, v1::Job* job) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = CompileSpec("square", v1::USER_KERNEL_FORM_CUDA, source_, "sq");
    v1::SubmitJobResponse response;
    const grpc::Status s = daemon_->stub().SubmitJob(ContextFor(token).get(), request, &response);
    *job = response.job();
    return s;
  }

  grpc::Status RegisterAs(const std::string& token, const std::string& name) {
    v1::AddVariantRequest request;
    request.set_operation("square");
    v1::UserKernel* kernel = request.mutable_kernel();
    kernel->set_name(name);
    kernel->set_form(v1::USER_KERNEL_FORM_CUDA);
    kernel->set_code(source_);
    kernel->set_entry("sq");
    kernel->mutable_launch()->add_grid("cdiv(n, 256)");
    kernel->mutable_launch()->add_block("256");
    v1::AddVariantResponse response;
    return daemon_->stub().AddVariant(ContextFor(token).get(), request, &response);
  }

  // Waits up to a minute for the job to end (compiled, or failed where NVRTC is missing), then
  // removes it.
  void RemoveWhenFinished(const std::string& token, const std::string& id) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    v1::GetJobResponse got;
    for (int i = 0; i < 600 && !IsTerminal(got.job().state()); ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const grpc::Status s = daemon_->stub().GetJob(ContextFor(token).get(), request, &got);
      ASSERT_TRUE(s.ok()) << s.error_message();
    }
    ASSERT_TRUE(IsTerminal(got.job().state())) << got.job().DebugString();
    const KbctlRun removed =
        RunKbctl(daemon_->address(), absl::StrCat("--token ", token, " jobs rm ", id), dir_.path());
    ASSERT_EQ(removed.exit_code, 0) << removed.out << removed.err;
  }

  TempDir dir_;
  std::string auth_file_;
  std::string alice_, bob_;
  std::unique_ptr<Daemon> daemon_;
  const std::string source_ = LargeSource();
};

TEST_F(StoredBytesQuota, BobIsRefusedPastHisBoundUntilHeRemovesAJobAndAliceIsNot) {
  v1::Job first, second, refused_job;
  ASSERT_TRUE(SubmitAs(bob_, &first).ok());
  ASSERT_TRUE(SubmitAs(bob_, &second).ok());
  const grpc::Status refused = SubmitAs(bob_, &refused_job);
  ASSERT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(),
              HasSubstr(absl::StrCat("limit max_stored_bytes of 'bob' is ", kMaxStoredBytes)));
  EXPECT_THAT(refused.error_message(), HasSubstr("'bob' keeps "));
  EXPECT_THAT(refused.error_message(), HasSubstr("kbctl jobs rm"));
  // A registration stores code too.
  const grpc::Status unregistered = RegisterAs(bob_, "@big");
  EXPECT_EQ(unregistered.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << unregistered.error_message();
  EXPECT_THAT(unregistered.error_message(), HasSubstr("max_stored_bytes of 'bob'"));

  v1::Job alices;
  const grpc::Status alice = SubmitAs(alice_, &alices);
  EXPECT_TRUE(alice.ok()) << alice.error_message();

  RemoveWhenFinished(bob_, first.id());
  v1::Job again;
  const grpc::Status accepted = SubmitAs(bob_, &again);
  EXPECT_TRUE(accepted.ok()) << accepted.error_message();
}

}  // namespace
}  // namespace kbench::testing
