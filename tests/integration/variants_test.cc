// Integration: registered user variants through kbctl against a real kbenchd (issue 10, item
// 3) — add, list, show (with the code to its owner), rm; a name taken twice, a bad launch
// expression and the per-owner limit refused at registration; and a job listing `@name`
// resolved from the registry (on the cpu device it then meets the "CUDA devices only" rule,
// which shows the kernel was found) or refused NOT_FOUND naming the name; a job's own unnamed
// kernel is its "@user", never looked up.
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

constexpr char kSquareSource[] = R"(extern "C" __global__ void sq(const float* x, float* y,
                                        long long n) {
  const long long i = blockIdx.x * 256LL + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}
)";

class VariantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = dir_.path() + "/sq.cu";
    std::ofstream(source_) << kSquareSource;
  }
  KbctlRun Kbctl(const std::string& args) {
    return RunKbctl(daemon_->address(), args, dir_.path());
  }
  KbctlRun Add(const std::string& name, const std::string& grid = "'cdiv(n, 256)'") {
    return Kbctl("variants add square " + name + " --source " + source_ + " --entry sq --grid " +
                 grid + " --block 256");
  }

  TempDir dir_;
  std::string source_;
  std::unique_ptr<Daemon> daemon_ = std::make_unique<Daemon>(
      dir_.path(), std::vector<std::string>{"--max-variants-per-owner", "3"});
};

TEST_F(VariantsTest, AddListShowAndRemove) {
  const KbctlRun added = Add("my_sq");
  ASSERT_EQ(added.exit_code, 0) << added.out << added.err;
  EXPECT_NE(added.out.find("registered square @my_sq"), std::string::npos) << added.out;

  const KbctlRun list = Kbctl("-o json variants list square");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const nlohmann::json doc = nlohmann::json::parse(list.out);
  ASSERT_EQ(doc["variants"].size(), 1u) << list.out;
  EXPECT_EQ(doc["variants"][0]["name"], "@my_sq");
  EXPECT_EQ(doc["variants"][0]["operation"], "square");
  EXPECT_EQ(doc["variants"][0]["form"], "USER_KERNEL_FORM_CUDA");
  EXPECT_EQ(doc["variants"][0]["code_bytes"], std::to_string(sizeof(kSquareSource) - 1));
  EXPECT_FALSE(doc["variants"][0].contains("kernel") &&
               doc["variants"][0]["kernel"].contains("code"))
      << "a list carries no code";
  EXPECT_NE(Kbctl("variants list").out.find("@my_sq"), std::string::npos);

  // Without --code: how it is launched, not its code.
  const KbctlRun launch = Kbctl("-o json variants show square my_sq");
  ASSERT_EQ(launch.exit_code, 0) << launch.err;
  const nlohmann::json shown = nlohmann::json::parse(launch.out)["variant"];
  EXPECT_EQ(shown["kernel"]["entry"], "sq") << launch.out;
  EXPECT_EQ(shown["kernel"]["launch"]["grid"][0], "cdiv(n, 256)") << launch.out;
  EXPECT_EQ(shown["kernel"]["code"], "") << "the code comes only with --code";

  const std::string code_path = dir_.path() + "/back.cu";
  const KbctlRun show = Kbctl("variants show square my_sq --code " + code_path);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("cdiv(n, 256)"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Entry"), std::string::npos) << show.out;
  std::stringstream back;
  back << std::ifstream(code_path).rdbuf();
  EXPECT_EQ(back.str(), kSquareSource);

  const KbctlRun removed = Kbctl("variants rm square @my_sq");
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_NE(Kbctl("variants list square").out.find("No registered variants"), std::string::npos);
  const KbctlRun gone = Kbctl("variants show square my_sq");
  EXPECT_EQ(gone.exit_code, 3);
  EXPECT_NE(gone.err.find("NOT_FOUND"), std::string::npos) << gone.err;
}

TEST_F(VariantsTest, RefusesATakenNameABadLaunchAndMoreThanTheOwnersLimit) {
  ASSERT_EQ(Add("a").exit_code, 0);
  const KbctlRun again = Add("a");
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_NE(again.err.find("ALREADY_EXISTS"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("@a"), std::string::npos) << again.err;

  const KbctlRun bad = Add("b", "'cdiv(rows, 256)'");  // square has no dim "rows"
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("INVALID_ARGUMENT"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("rows"), std::string::npos) << bad.err;

  const KbctlRun bad_name = Add("'sq!'");
  EXPECT_EQ(bad_name.exit_code, 3);
  EXPECT_NE(bad_name.err.find("kernel.name"), std::string::npos) << bad_name.err;

  ASSERT_EQ(Add("b").exit_code, 0);
  ASSERT_EQ(Add("c").exit_code, 0);
  const KbctlRun over = Add("d");
  EXPECT_EQ(over.exit_code, 3);
  EXPECT_NE(over.err.find("RESOURCE_EXHAUSTED"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("--max-variants-per-owner"), std::string::npos) << over.err;
}

TEST_F(VariantsTest, AJobListingARegisteredNameGetsItsKernel) {
  ASSERT_EQ(Add("my_sq").exit_code, 0);
  // Found in the registry: the job then meets the rule that user kernels need a CUDA device.
  const KbctlRun found =
      Kbctl("compare square --variants host_loop,@my_sq --shape 4096 --device cpu");
  EXPECT_EQ(found.exit_code, 3);
  EXPECT_NE(found.err.find("FAILED_PRECONDITION"), std::string::npos) << found.err;
  EXPECT_NE(found.err.find("CUDA devices"), std::string::npos) << found.err;

  const KbctlRun missing =
      Kbctl("compare square --variants host_loop,@nobody --shape 4096 --device cpu");
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("NOT_FOUND"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("@nobody"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("kbctl variants list square"), std::string::npos) << missing.err;

  // A sweep's points resolve it too.
  const KbctlRun sweep =
      Kbctl("sweep square --variants host_loop,@nobody --axis dim0=1024:4096:*2 --device cpu");
  EXPECT_EQ(sweep.exit_code, 3);
  EXPECT_NE(sweep.err.find("@nobody"), std::string::npos) << sweep.err;
}

// A job's own unnamed user kernel is its "@user", not a registered name to look up (the GPU tests
// list it so; a NOT_FOUND here broke every one of them).
TEST_F(VariantsTest, AnUnnamedUserKernelIsTheJobsAtUserNotARegisteredName) {
  v1::JobSpec spec;
  spec.set_kernel("square");
  spec.add_variants("host_loop");
  spec.add_variants("@user");
  spec.add_shape(4096);
  spec.set_device("cpu");
  v1::UserKernel* uk = spec.add_user_kernels();
  uk->set_form(v1::USER_KERNEL_FORM_CUDA);
  uk->set_code(kSquareSource);
  uk->set_entry("sq");
  uk->mutable_launch()->add_grid("cdiv(n, 256)");
  uk->mutable_launch()->add_block("256");
  const absl::StatusOr<v1::Job> job = Submit(daemon_->stub(), spec);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kFailedPrecondition) << job.status();
  EXPECT_NE(job.status().message().find("CUDA devices"), std::string::npos) << job.status();
}

TEST_F(VariantsTest, SurviveARestart) {
  ASSERT_EQ(Add("kept").exit_code, 0);
  ASSERT_EQ(daemon_->Stop(SIGTERM), 0);
  daemon_ = std::make_unique<Daemon>(dir_.path());
  EXPECT_NE(Kbctl("variants list square").out.find("@kept"), std::string::npos);
}

}  // namespace
}  // namespace kbench::testing
