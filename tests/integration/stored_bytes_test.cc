// Integration (issue 24, item 8): each owner's bound on stored bytes, through a real kbenchd with
// tokens on loopback (--default-max-stored-bytes 2500000). Bob submits compile jobs whose CUDA
// sources are 900 kB each (all different) until a submit, and then a registration, is refused
// RESOURCE_EXHAUSTED naming the limit, what he keeps and how to free it; removing a finished
// job (kbctl jobs rm) frees its bytes and the next submit is accepted. Alice, who keeps her own
// bytes, is never refused. A registered 900 kB variant and ten compile jobs of its code keep the
// code once (in kbench.db and in the count), fit under the bound, and compile it (the executor
// is handed the whole code).
#include <sqlite3.h>

#include <chrono>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"
#include "tests/server/auth/credentials.h"

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

  // Submits a compile job of a source no earlier submit used: kept code is counted once per
  // owner, so the same source twice would cost its bytes once.
  grpc::Status SubmitAs(const std::string& token, v1::Job* job) {
    v1::SubmitJobRequest request;
    std::string source = source_;
    // Inside the first padding comment, same length: "// submit 3      that a user's...".
    source.replace(source.find("// padding") + 3, 16,
                   absl::StrCat("submit ", ++submits_, "          ").substr(0, 16));
    *request.mutable_spec() = CompileSpec("square", v1::USER_KERNEL_FORM_CUDA, source, "sq");
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
    kernel->set_arch("sm_90a");  // for the compile jobs that run it on the cpu device
    kernel->mutable_launch()->add_grid("cdiv(n, 256)");
    kernel->mutable_launch()->add_block("256");
    v1::AddVariantResponse response;
    return daemon_->stub().AddVariant(ContextFor(token).get(), request, &response);
  }

  // Waits up to a minute for the job to end (compiled, or failed where NVRTC is missing).
  v1::Job WaitFinished(const std::string& token, const std::string& id) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    v1::GetJobResponse got;
    for (int i = 0; i < 600 && !IsTerminal(got.job().state()); ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const grpc::Status s = daemon_->stub().GetJob(ContextFor(token).get(), request, &got);
      EXPECT_TRUE(s.ok()) << s.error_message();
      if (!s.ok()) break;
    }
    EXPECT_TRUE(IsTerminal(got.job().state())) << got.job().DebugString();
    return got.job();
  }

  // Waits for the job to end, then removes it.
  void RemoveWhenFinished(const std::string& token, const std::string& id) {
    ASSERT_TRUE(IsTerminal(WaitFinished(token, id).state()));
    const KbctlRun removed =
        RunKbctl(daemon_->address(), absl::StrCat("--token ", token, " jobs rm ", id), dir_.path());
    ASSERT_EQ(removed.exit_code, 0) << removed.out << removed.err;
  }

  // The first column of `sql`'s first row, read from kbench.db beside the running kbenchd (WAL
  // lets a reader in); -1 when it cannot be read.
  int64_t QueryDatabase(const std::string& sql) {
    sqlite3* db = nullptr;
    const std::string path = dir_.path() + "/data/kbench.db";
    int64_t value = -1;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_stmt* query = nullptr;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &query, nullptr) == SQLITE_OK &&
          sqlite3_step(query) == SQLITE_ROW) {
        value = sqlite3_column_int64(query, 0);
      }
      sqlite3_finalize(query);
    }
    sqlite3_close(db);
    return value;
  }

  TempDir dir_;
  std::string auth_file_;
  std::string alice_, bob_;
  std::unique_ptr<Daemon> daemon_;
  const std::string source_ = LargeSource();
  int submits_ = 0;
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

// A job that lists a registered variant needs a CUDA device (a compile job takes its kernel
// inline), so on the cpu device the jobs bring the variant's code themselves: the store keeps one
// copy for the variant and the ten jobs alike (tests/server/store/code_blobs_test.cc has jobs that
// list the variant; tests/gpu/user_kernel_gpu_test.cc runs them).
TEST_F(StoredBytesQuota, TenJobsOfOneVariantsCodeKeepItOnceFitUnderTheBoundAndCompileIt) {
  ASSERT_TRUE(RegisterAs(bob_, "@big").ok());
  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) {
    v1::SubmitJobRequest request;
    *request.mutable_spec() = CompileSpec("square", v1::USER_KERNEL_FORM_CUDA, source_, "sq");
    v1::SubmitJobResponse response;
    const grpc::Status s = daemon_->stub().SubmitJob(ContextFor(bob_).get(), request, &response);
    ASSERT_TRUE(s.ok()) << "submit " << i << ": " << s.error_message()
                        << " (ten copies of the code would pass the bound)";
    ids.push_back(response.job().id());
  }
  // Each job's row holds its spec without the code; the code is kept once, for all of them and
  // the variant.
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM code_blobs"), 1);
  EXPECT_EQ(QueryDatabase("SELECT SUM(size_bytes) FROM code_blobs"),
            static_cast<int64_t>(kSourceBytes));
  const int64_t specs = QueryDatabase("SELECT SUM(length(spec)) FROM jobs");
  EXPECT_GT(specs, 0);
  EXPECT_LT(specs, 10 * 4096) << "ten specs without their code";
  EXPECT_LT(QueryDatabase("SELECT SUM(length(kernel)) FROM user_variants"), 4096);

  // Each job is handed the whole code: NVRTC compiles it (where NVRTC is installed) and the
  // result names the module's hash.
  for (const std::string& id : ids) {
    const v1::Job done = WaitFinished(bob_, id);
    ASSERT_TRUE(IsTerminal(done.state()));
    if (done.state() != v1::JOB_STATE_SUCCEEDED) {
      EXPECT_THAT(done.error(), ::testing::Not(HasSubstr("code"))) << done.DebugString();
      continue;
    }
    // Replies never echo a kernel's code (job_convert.cc); its hash names it.
    EXPECT_EQ(done.result().compile().module_sha256(), done.spec().user_kernels(0).code_sha256());
    EXPECT_TRUE(done.spec().user_kernels(0).code().empty());
  }
  // Bob keeps the code once (0.9 MB): one more code fits, a third does not, but another job of
  // the code he keeps adds only its spec, and is accepted.
  v1::Job other, refused_job, again;
  ASSERT_TRUE(SubmitAs(bob_, &other).ok());
  const grpc::Status refused = SubmitAs(bob_, &refused_job);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  v1::SubmitJobRequest same;
  *same.mutable_spec() = CompileSpec("square", v1::USER_KERNEL_FORM_CUDA, source_, "sq");
  v1::SubmitJobResponse accepted;
  const grpc::Status kept = daemon_->stub().SubmitJob(ContextFor(bob_).get(), same, &accepted);
  ASSERT_TRUE(kept.ok()) << kept.error_message();
  ids.push_back(accepted.job().id());
  ids.push_back(other.id());
  for (const std::string& id : ids) RemoveWhenFinished(bob_, id);
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM code_blobs"), 1) << "the variant keeps it";
  const KbctlRun removed = RunKbctl(
      daemon_->address(), absl::StrCat("--token ", bob_, " variants rm square @big"), dir_.path());
  ASSERT_EQ(removed.exit_code, 0) << removed.out << removed.err;
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM code_blobs"), 0) << "its last holder went";
}

}  // namespace
}  // namespace kbench::testing
