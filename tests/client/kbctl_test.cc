// kbctl's whole command line, run in-process against a scripted gRPC server: what it sends,
// what it prints on stdout and stderr, and its exit codes.
#include "client/kbctl.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "client/artifact_download.h"
#include "client/format/json.h"
#include "client/format/yaml.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "gtest/gtest.h"
#include "tests/client/fake_kbench_server.h"
#include "tests/client/run_kbctl.h"

namespace kbench::client {
namespace {

using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using testing::FakeKbenchServer;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

class KbctlTest : public ::testing::Test {
 protected:
  Result Run(std::vector<std::string> args, bool tty = false) {
    args.insert(args.begin(), {"--server", server_.address()});
    return Kbctl(args, {{"USER", "tester"}}, tty);
  }

  // A temporary directory for downloads, removed after the test.
  std::filesystem::path TempDir() {
    if (dir_.empty()) {
      dir_ = std::filesystem::temp_directory_path() /
             ("kbctl_test_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
      std::filesystem::create_directories(dir_);
    }
    return dir_;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  FakeKbenchServer server_;
  std::filesystem::path dir_;
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Kbctl, HelpDocumentsExitCodesAndExitsZero) {
  const Result r = Kbctl({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("Exit codes:"));
  EXPECT_THAT(r.out, HasSubstr("2  usage error"));
  EXPECT_THAT(r.out, HasSubstr("3  RPC error"));
  EXPECT_THAT(r.out, HasSubstr("KBENCH_SERVER"));
}

TEST(Kbctl, VersionPrintsVersionAndExitsZero) {
  const Result r = Kbctl({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, ContainsRegex("^kbctl [0-9]+\\.[0-9]+"));
}

TEST(Kbctl, MissingSubcommandIsUsageError) {
  const Result r = Kbctl({});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("kbctl --help"));
}

TEST(Kbctl, UnknownFlagIsUsageErrorNamingTheSubcommandHelp) {
  const Result r = Kbctl({"bench", "copy", "--variant", "host_memcpy", "--bogus"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--bogus"));
  EXPECT_THAT(r.err, HasSubstr("kbctl bench --help"));
}

TEST_F(KbctlTest, BadShapeIsUsageErrorAndSendsNothing) {
  for (const char* shape : {"4096xx4", "0x4", "-1x4", "axb", "4294967296x4294967296", ""}) {
    const Result r = Run({"bench", "softmax", "--variant", "fused", "--shape", shape});
    EXPECT_EQ(r.code, 2) << shape;
    EXPECT_THAT(r.err, HasSubstr("kbctl: --shape")) << shape;
    EXPECT_THAT(r.out, IsEmpty());
  }
  EXPECT_EQ(server_.rpc_count(), 0);
}

TEST_F(KbctlTest, BadOutputFormatIsUsageError) {
  const Result r = Run({"-o", "xml", "devices"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("expected table, wide, json or yaml"));
  EXPECT_EQ(server_.rpc_count(), 0);
}

// Issue 28: -o yaml is -o json's document as YAML (kubectl's formats), on every command.
TEST_F(KbctlTest, YamlIsTheJsonDocumentAsYaml) {
  const Result json = Run({"devices", "-o", "json"});
  const Result yaml = Run({"devices", "-o", "yaml"});
  ASSERT_EQ(yaml.code, 0) << yaml.err;
  EXPECT_EQ(yaml.out.find('{'), std::string::npos) << yaml.out;
  EXPECT_THAT(yaml.out, HasSubstr("devices:\n  - "));
  EXPECT_EQ(JsonToYaml(json.out).value_or(""), yaml.out);
}

// Issue 28: -o is the output format on every command, as in kubectl; a file name given to it
// (the habit of `kbctl report S -o out.html` before) is refused with the flag that takes it.
TEST_F(KbctlTest, AFileGivenToDashOIsRefusedNamingFileAndDir) {
  const Result r = Run({"report", "s-1", "-o", "out.html"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown output format \"out.html\""));
  EXPECT_THAT(r.err, HasSubstr("--file/-f PATH"));
  EXPECT_EQ(server_.rpc_count(), 0);
}

TEST(Kbctl, UnreachableServerIsRpcErrorWithCodeOnStderr) {
  // Port 1 on loopback: nothing listens there, and connecting fails at once.
  const Result r = Kbctl({"--server", "127.0.0.1:1", "devices"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, ContainsRegex("^kbctl: UNAVAILABLE: "));
  EXPECT_THAT(r.err, HasSubstr("is kbenchd listening on 127.0.0.1:1?"));
  EXPECT_THAT(r.out, IsEmpty());
}

TEST(Kbctl, KbenchServerEnvironmentVariableSelectsTheServer) {
  FakeKbenchServer server;
  const Result r = Kbctl({"devices"}, {{"KBENCH_SERVER", server.address()}});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Fake CPU"));
}

TEST(Kbctl, ServerFlagOverridesEnvironment) {
  FakeKbenchServer server;
  const Result r =
      Kbctl({"--server", server.address(), "devices"}, {{"KBENCH_SERVER", "127.0.0.1:1"}});
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(KbctlTest, ServerErrorIsPrintedAsCodeAndMessageAndExitsThree) {
  server_.FailSubmitWith(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                      "variants: softmax has no variant \"turbo\""));
  const Result r = Run({"bench", "softmax", "--variant", "turbo", "--shape", "8x8"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "kbctl: INVALID_ARGUMENT: variants: softmax has no variant \"turbo\"\n");
  EXPECT_THAT(r.out, IsEmpty());
}

TEST_F(KbctlTest, BenchSendsTheSpecTheFlagsDescribe) {
  const Result r = Run({"bench",
                        "mlp",
                        "--variant",
                        "fused",
                        "--shape",
                        "1024x512",
                        "--dtype",
                        "tf32",
                        "--device",
                        "cuda:0",
                        "--mode",
                        "graph",
                        "--max-noise",
                        "1%",
                        "--min-samples",
                        "20",
                        "--min-time",
                        "250ms",
                        "--timeout-s",
                        "30",
                        "--seed",
                        "1234",
                        "--priority",
                        "-5",
                        "--param",
                        "layers=4",
                        "--param",
                        "steps=2",
                        "--idempotency-key",
                        "k1"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(server_.submits().size(), 1u);
  const v1::SubmitJobRequest req = server_.submits()[0];
  const v1::JobSpec& spec = req.spec();
  EXPECT_EQ(spec.kind(), v1::JOB_KIND_BENCHMARK);
  EXPECT_EQ(spec.kernel(), "mlp");
  EXPECT_THAT(spec.variants(), ElementsAre("fused"));
  EXPECT_THAT(spec.shape(), ElementsAre(1024, 512));
  EXPECT_EQ(spec.dtype(), v1::DTYPE_TF32);
  EXPECT_EQ(spec.device(), "cuda:0");
  EXPECT_EQ(spec.mode(), v1::MEASURE_MODE_GRAPH);
  EXPECT_DOUBLE_EQ(spec.stopping().max_noise(), 0.01);
  EXPECT_EQ(spec.stopping().min_samples(), 20);
  EXPECT_DOUBLE_EQ(spec.stopping().min_time_seconds(), 0.25);
  EXPECT_DOUBLE_EQ(spec.stopping().timeout_seconds(), 30);
  EXPECT_EQ(spec.seed(), 1234u);
  EXPECT_EQ(spec.priority(), -5);
  EXPECT_EQ(spec.params().at("layers"), 4);
  EXPECT_EQ(spec.params().at("steps"), 2);
  EXPECT_EQ(spec.owner(), "tester");
  EXPECT_EQ(req.idempotency_key(), "k1");
}

TEST_F(KbctlTest, PlacementsGoIntoTheSpecWithinTheirBounds) {
  Result r =
      Run({"compare", "copy", "--variants", "host_memcpy", "--shape", "4096", "--placements", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(server_.submits().size(), 1u);
  EXPECT_EQ(server_.submits()[0].spec().placements(), 8);
  for (const char* bad : {"0", "17", "two"}) {
    r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096", "--placements", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("--placements")) << bad;
  }
  EXPECT_EQ(server_.submits().size(), 1u);
}

TEST_F(KbctlTest, BenchLeavesUnsetFieldsAtZeroForTheServerDefaults) {
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096"});
  ASSERT_EQ(r.code, 0) << r.err;
  const v1::JobSpec spec = server_.submits()[0].spec();
  EXPECT_EQ(spec.dtype(), v1::DTYPE_UNSPECIFIED);
  EXPECT_EQ(spec.mode(), v1::MEASURE_MODE_UNSPECIFIED);
  EXPECT_EQ(spec.device(), "");
  EXPECT_EQ(spec.seed(), 0u);
  EXPECT_FALSE(spec.stopping().max_noise() > 0);
}

TEST_F(KbctlTest, BenchPrintsStatisticsThroughputCorrectnessAndEnvironment) {
  const Result r =
      Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096", "--device", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("State: +succeeded"));
  EXPECT_THAT(r.out, ContainsRegex("Median: +1.000 ms"));
  EXPECT_THAT(r.out, HasSubstr("min 980.0 us"));
  EXPECT_THAT(r.out, HasSubstr("p10 990.0 us  p90 1.020 ms  p99 1.100 ms"));
  EXPECT_THAT(r.out, HasSubstr("8.389 GB/s (50.0% of copy bandwidth)"));
  EXPECT_THAT(r.out, HasSubstr("pass (1.5e-07 <= 1e-05)"));
  EXPECT_THAT(r.out, ContainsRegex("Stopped: +converged"));
  EXPECT_THAT(r.out, HasSubstr("Environment:"));
  EXPECT_THAT(r.out, HasSubstr("Fake Device"));
}

TEST_F(KbctlTest, BenchShowsPlainProgressLinesWhenStderrIsNotATerminal) {
  const Result r =
      Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096", "--device", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("submitted job job-1"));
  EXPECT_THAT(r.err, HasSubstr("job job-1 queued on cpu\n"));
  EXPECT_THAT(r.err, HasSubstr("job job-1 running on cpu: measuring host_memcpy: 5 samples, "
                               "spread 2.00% (stops at a median within 0.50%, or a spread within "
                               "it), 100ms\n"));
  EXPECT_THAT(r.err, HasSubstr("50 samples, spread 0.40% (stops at a median within 0.50%, or a "
                               "spread within it), 1.6s\n"));
  EXPECT_THAT(r.err, Not(HasSubstr("\r")));
}

TEST_F(KbctlTest, BenchRedrawsOneProgressLineOnATerminal) {
  const Result r =
      Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096"}, /*tty=*/true);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("\r\033[Kjob job-1 running"));
  EXPECT_THAT(r.err, ::testing::EndsWith("\r\033[K"));  // Cleared before the result.
}

TEST_F(KbctlTest, BenchUsesTheCatalogueDefaultShapeWhenNoneIsGiven) {
  const Result r = Run({"bench", "softmax", "--variant", "fused"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(server_.submits()[0].spec().shape(), ElementsAre(4096, 4096));
  EXPECT_THAT(r.err, HasSubstr("using softmax's default 4096x4096"));
}

TEST_F(KbctlTest, BenchOfUnknownKernelWithoutShapeNamesTheCatalogue) {
  const Result r = Run({"bench", "sofmax", "--variant", "fused"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("kbctl: INVALID_ARGUMENT: OP:"));
  EXPECT_THAT(r.err, HasSubstr("no operation named \"sofmax\"; the catalogue has copy, square, "
                               "add, gelu, softmax, reduce, matmul, mlp"));
  EXPECT_TRUE(server_.submits().empty());
}

TEST_F(KbctlTest, BenchExitsOneWhenTheJobFails) {
  server_.set_script([](const v1::Job& submitted) {
    v1::Job failed = submitted;
    failed.set_state(v1::JOB_STATE_FAILED);
    failed.set_error("executor for cpu died (signal 9) while running the job");
    failed.set_error_code("INTERNAL");
    return std::vector<v1::Job>{failed};
  });
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, ContainsRegex("State: +failed"));
  EXPECT_THAT(r.err, HasSubstr("kbctl: INTERNAL: job job-1 failed: executor for cpu died"));
}

TEST_F(KbctlTest, BenchExitsOneWhenCorrectnessFails) {
  server_.set_script([](const v1::Job& submitted) {
    v1::Job done = submitted;
    done.set_state(v1::JOB_STATE_SUCCEEDED);
    v1::VariantResult* v = done.mutable_result()->add_variants();
    *v = testing::MakeVariantResult("host_memcpy", 1e-3);
    v->mutable_correctness()->set_passed(false);
    v->mutable_correctness()->set_relative_l2_error(0.5);
    return std::vector<v1::Job>{done};
  });
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("FAIL (0.5 vs 1e-05)"));
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION: job job-1: copy/host_memcpy failed its "
                               "correctness check"));
}

TEST_F(KbctlTest, BenchExitsOneWhenTheJobIsCancelled) {
  server_.set_script([](const v1::Job& submitted) {
    v1::Job cancelled = submitted;
    cancelled.set_state(v1::JOB_STATE_CANCELLED);
    return std::vector<v1::Job>{cancelled};
  });
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("kbctl: CANCELLED: job job-1 was cancelled"));
}

TEST_F(KbctlTest, BenchNoWaitPrintsOnlyTheJobId) {
  const Result r =
      Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096", "--no-wait"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job-1\n");
  EXPECT_EQ(server_.rpc_count(), 1);  // Submit only: no watch.
}

TEST_F(KbctlTest, BenchNoWaitJsonPrintsTheSubmittedJob) {
  const Result r = Run(
      {"-o", "json", "bench", "copy", "--variant", "host_memcpy", "--shape", "4096", "--no-wait"});
  EXPECT_EQ(r.code, 0) << r.err;
  v1::Job job;
  ASSERT_TRUE(FromJson(r.out, &job).ok()) << r.out;
  EXPECT_EQ(job.id(), "job-1");
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  EXPECT_THAT(r.err, IsEmpty());
}

TEST_F(KbctlTest, BenchJsonPrintsOnlyTheFinalJobOnStdout) {
  const Result r =
      Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4096", "-o", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  v1::Job job;
  ASSERT_TRUE(FromJson(r.out, &job).ok()) << r.out;
  EXPECT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_DOUBLE_EQ(job.result().variants(0).stats().median_seconds(), 1e-3);
  EXPECT_THAT(r.err, IsEmpty());  // No progress, no notes.
}

TEST_F(KbctlTest, BenchJsonOfAFailedJobStillPrintsTheJobAndExitsOne) {
  server_.set_script([](const v1::Job& submitted) {
    v1::Job failed = submitted;
    failed.set_state(v1::JOB_STATE_FAILED);
    failed.set_error_code("RESOURCE_EXHAUSTED");
    failed.set_error("out of memory");
    return std::vector<v1::Job>{failed};
  });
  const Result r = Run({"-o", "json", "bench", "copy", "--variant", "host_memcpy", "--shape", "4"});
  EXPECT_EQ(r.code, 1);
  v1::Job job;
  ASSERT_TRUE(FromJson(r.out, &job).ok()) << r.out;
  EXPECT_EQ(job.error_code(), "RESOURCE_EXHAUSTED");
  EXPECT_EQ(r.err, "kbctl: RESOURCE_EXHAUSTED: job job-1 failed: out of memory\n");
}

TEST_F(KbctlTest, BenchOfAFailedJobExitsWithTheCodeOfErrorStatus) {
  server_.set_script([](const v1::Job& submitted) {
    v1::Job failed = submitted;
    failed.set_state(v1::JOB_STATE_FAILED);
    failed.set_error_status(v1::STATUS_CODE_RESOURCE_EXHAUSTED);
    failed.set_error("out of memory");
    return std::vector<v1::Job>{failed};
  });
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("RESOURCE_EXHAUSTED: out of memory"));
  EXPECT_THAT(r.err, HasSubstr("kbctl: RESOURCE_EXHAUSTED: job job-1 failed: out of memory"));
}

TEST_F(KbctlTest, RetriedSubmitWithSameIdempotencyKeyFollowsTheFirstJob) {
  ASSERT_EQ(Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4", "--idempotency-key",
                 "k", "--no-wait"})
                .out,
            "job-1\n");
  const Result again =
      Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4", "--idempotency-key", "k"});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("idempotency key \"k\" matched job job-1"));
  EXPECT_THAT(again.out, ContainsRegex("Job: +job-1"));
}

// A restarting kbenchd (issue 25): its drain answers UNAVAILABLE, and a keyed submit is safe to
// send again.
const grpc::Status kShuttingDown(grpc::StatusCode::UNAVAILABLE,
                                 "kbenchd is shutting down; retry in a few seconds");

TEST_F(KbctlTest, SubmitWithAnIdempotencyKeyIsRetriedWhileKbenchdIsUnavailable) {
  server_.FailSubmitWith(kShuttingDown, 2);
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4",
                        "--idempotency-key", "k", "--no-wait"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job-1\n");
  ASSERT_EQ(server_.submits().size(), 3u);
  for (const v1::SubmitJobRequest& sent : server_.submits()) EXPECT_EQ(sent.idempotency_key(), "k");
  EXPECT_THAT(r.err, HasSubstr("kbctl: kbenchd is shutting down; retry in a few seconds"));
  EXPECT_THAT(r.err, HasSubstr("submitting again with idempotency key \"k\" in 250ms (attempt 2 "
                               "of 10)"));
  EXPECT_THAT(r.err, HasSubstr("in 500ms (attempt 3 of 10)"));
}

TEST_F(KbctlTest, SubmitWithAnIdempotencyKeyGivesUpAfterTenAttempts) {
  server_.FailSubmitWith(kShuttingDown);
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4",
                        "--idempotency-key", "k", "--no-wait"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(server_.submits().size(), 10u);
  EXPECT_THAT(r.err, HasSubstr("in 4s (attempt 10 of 10)"));
  EXPECT_THAT(r.err, HasSubstr("kbctl: UNAVAILABLE: kbenchd is shutting down"));
}

TEST_F(KbctlTest, SubmitWithoutAnIdempotencyKeyIsNotRetried) {
  server_.FailSubmitWith(kShuttingDown, 1);
  const Result r = Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4", "--no-wait"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(server_.submits().size(), 1u);
  EXPECT_THAT(r.err, Not(HasSubstr("submitting again")));
}

TEST_F(KbctlTest, CompareSubmitsOneJobWithAllVariantsAndPrintsThemSideBySide) {
  const Result r = Run({"compare", "softmax", "--variants", "naive,fused", "--shape", "64x64",
                        "--device", "cuda:0"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(server_.submits().size(), 1u);
  EXPECT_THAT(server_.submits()[0].spec().variants(), ElementsAre("naive", "fused"));
  EXPECT_THAT(r.out, ContainsRegex("naive +1.000 ms .* 1.00x"));
  EXPECT_THAT(r.out, ContainsRegex("fused +500.0 us .* 2.00x"));
}

TEST_F(KbctlTest, CompareAllExpandsToTheVariantsOfTheDeviceKindAndDtype) {
  // matmul's CUDA variants: naive, tiled and register_blocked are f32 only, tensorcore has no
  // f32, cublas runs every dtype.
  ASSERT_EQ(Run({"compare", "matmul", "--variants", "all", "--device", "cuda:any", "--dtype",
                 "bf16", "--shape", "8x8x8", "--no-wait"})
                .code,
            0);
  EXPECT_THAT(server_.submits()[0].spec().variants(), ElementsAre("tensorcore", "cublas"));
  ASSERT_EQ(Run({"compare", "softmax", "--variants", "all", "--device", "cpu", "--shape", "8x8",
                 "--no-wait"})
                .code,
            0);
  EXPECT_THAT(server_.submits()[1].spec().variants(), ElementsAre("host_rowwise"));
}

TEST_F(KbctlTest, CompareAllWithoutDevicePicksCpuWhenTheServerHasNoGpu) {
  ASSERT_EQ(Run({"compare", "softmax", "--variants", "all", "--shape", "8x8", "--no-wait"}).code,
            0);
  EXPECT_EQ(server_.submits()[0].spec().device(), "cpu");
  EXPECT_THAT(server_.submits()[0].spec().variants(), ElementsAre("host_rowwise"));
}

TEST_F(KbctlTest, CompareAllWithNoMatchingVariantSaysWhatExists) {
  const Result r = Run({"compare", "softmax", "--variants", "all", "--device", "cpu", "--dtype",
                        "bf16", "--shape", "8x8"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("none of softmax's variants (host_rowwise, naive, fused, "
                               "warp_per_row, online) runs bf16 on cpu"));
  EXPECT_TRUE(server_.submits().empty());
}

TEST_F(KbctlTest, BenchRejectsSeveralVariantsPointingToCompare) {
  const Result r = Run({"bench", "softmax", "--variant", "naive,fused"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("use `kbctl compare softmax"));
}

TEST_F(KbctlTest, KernelsListsTheCatalogue) {
  const Result r = Run({"kernels"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("^OPERATION +VARIANTS +DIMS"));
  EXPECT_THAT(r.out, ContainsRegex("\ncopy +host_memcpy,vectorized,cuda_memcpy +elements\\.\\.\\. "
                                   "+4096x4096 +f32,f16,bf16\n"));
  EXPECT_THAT(r.out, ContainsRegex("\nmlp +host,unfused,fused +batch x dim +256x256 +f32,tf32\n"));
}

TEST_F(KbctlTest, KernelsOpDescribesVariants) {
  const Result r = Run({"kernels", "softmax"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("Description: +row-wise softmax"));
  EXPECT_THAT(r.out, ContainsRegex("\nhost_rowwise +cpu +f32 +three passes per row"));
  EXPECT_THAT(r.out, ContainsRegex("\nfused +cuda +f32,f16,bf16 +one block per row"));
}

TEST_F(KbctlTest, KernelsListsTheCollectivesAndPrintsTheirPerRankAbi) {
  Result r = Run({"kernels"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("\nall_reduce +nccl,one_shot,two_shot,host_staged +count "));
  EXPECT_THAT(r.out, ContainsRegex("\np2p +nccl +count "));
  r = Run({"kernels", "all_reduce", "--abi"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("all_reduce kernel ABI, one launch per rank"));
  EXPECT_THAT(r.out, HasSubstr("    const float* const* peer_send,"));
  EXPECT_THAT(r.out, HasSubstr("    int world_size  // ranks in the job\n);"));
}

TEST_F(KbctlTest, KernelsOfUnknownOpIsNotFound) {
  const Result r = Run({"kernels", "nope"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("kbctl: NOT_FOUND: kernels: no operation named \"nope\""));
}

TEST_F(KbctlTest, KernelsJsonRoundTrips) {
  const Result r = Run({"kernels", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListKernelsResponse back;
  ASSERT_TRUE(FromJson(r.out, &back).ok()) << r.out;
  // The eight one-device operations, then the six collectives (issue 30).
  ASSERT_EQ(back.kernels_size(), 14);
  EXPECT_EQ(back.kernels(4).name(), "softmax");
  EXPECT_EQ(back.kernels(8).name(), "all_reduce");
  EXPECT_EQ(back.kernels(4).variants(2).name(), "fused");
  EXPECT_EQ(back.kernels(7).params(1).name(), "steps");
}

TEST_F(KbctlTest, DevicesJsonIsAnObjectWithTheList) {
  const Result r = Run({"devices", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  google::protobuf::Struct doc;
  ASSERT_TRUE(FromJson(r.out, &doc).ok()) << r.out;
  EXPECT_EQ(doc.fields().at("devices").list_value().values_size(), 1);
}

TEST_F(KbctlTest, GetPrintsAJobAndExitsOneForAFailedJob) {
  v1::Job job;
  job.set_id("old");
  job.set_state(v1::JOB_STATE_FAILED);
  job.set_error("boom");
  server_.AddJob(job);
  const Result r = Run({"get", "old"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, ContainsRegex("Job: +old"));
  EXPECT_THAT(r.err, HasSubstr("kbctl: UNKNOWN: job old failed: boom"));
}

TEST_F(KbctlTest, GetOfUnknownJobIsNotFoundAndExitsThree) {
  const Result r = Run({"get", "missing"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "kbctl: NOT_FOUND: job_id: no job \"missing\"\n");
}

TEST_F(KbctlTest, WatchFollowsTheJobToItsEndAndPrintsIt) {
  ASSERT_EQ(Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4", "--no-wait"}).code,
            0);
  const Result r = Run({"watch", "job-1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("measuring host"));
  EXPECT_THAT(r.out, ContainsRegex("State: +succeeded"));
}

TEST_F(KbctlTest, CancelPrintsTheNewState) {
  ASSERT_EQ(Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4", "--no-wait"}).code,
            0);
  const Result r = Run({"cancel", "job-1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job job-1 cancelled\n");
  const Result json = Run({"cancel", "job-1", "-o", "json"});
  v1::Job job;
  ASSERT_TRUE(FromJson(json.out, &job).ok());
  EXPECT_EQ(job.state(), v1::JOB_STATE_CANCELLED);
}

TEST_F(KbctlTest, JobsPassesFiltersAndPageSize) {
  const Result r = Run({"jobs", "--state", "succeeded", "--kernel", "softmax", "--device", "cuda:0",
                        "--limit", "7"});
  EXPECT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(server_.list_requests().size(), 1u);
  const v1::ListJobsRequest req = server_.list_requests()[0];
  EXPECT_EQ(req.state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(req.kernel(), "softmax");
  EXPECT_EQ(req.device(), "cuda:0");
  EXPECT_EQ(req.page_size(), 7);
}

TEST_F(KbctlTest, JobsShowsOnePageAndHowToGetTheNext) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4", "--no-wait"}).code,
              0);
  }
  const Result r = Run({"jobs", "--limit", "2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("job-5"));
  EXPECT_THAT(r.out, HasSubstr("job-4"));
  EXPECT_THAT(r.out, Not(HasSubstr("job-3")));
  EXPECT_THAT(r.err, HasSubstr("--page-token offset:2"));
  const Result next = Run({"jobs", "--limit", "2", "--page-token", "offset:2"});
  EXPECT_THAT(next.out, HasSubstr("job-3"));
}

TEST_F(KbctlTest, JobsAllFollowsPageTokensToTheEnd) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Run({"bench", "copy", "--variant", "host_memcpy", "--shape", "4", "--no-wait"}).code,
              0);
  }
  const Result r = Run({"jobs", "--limit", "2", "--all", "-o", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  v1::ListJobsResponse all;
  ASSERT_TRUE(FromJson(r.out, &all).ok()) << r.out;
  ASSERT_EQ(all.jobs_size(), 5);
  EXPECT_EQ(all.jobs(0).id(), "job-5");
  EXPECT_EQ(all.jobs(4).id(), "job-1");
  EXPECT_EQ(all.next_page_token(), "");
  EXPECT_EQ(server_.list_requests().size(), 3u);
}

TEST_F(KbctlTest, JobsWithMalformedPageTokenIsTheServersInvalidArgument) {
  const Result r = Run({"jobs", "--page-token", "garbage"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("kbctl: INVALID_ARGUMENT: page_token"));
}

TEST_F(KbctlTest, HealthPrintsServingAndExitsZero) {
  const Result r = Run({"health"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "SERVING\n");
  const Result json = Run({"health", "-o", "json"});
  EXPECT_THAT(json.out, HasSubstr("\"status\": \"SERVING\""));
}

TEST_F(KbctlTest, HealthExitsOneWhenNotServing) {
  server_.SetServing(false);
  const Result r = Run({"health"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "NOT_SERVING\n");
  EXPECT_THAT(r.err, HasSubstr("is NOT_SERVING"));
}

TEST_F(KbctlTest, HealthOfUnknownServiceIsNotFound) {
  const Result r = Run({"health", "no.such.Service"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("kbctl: NOT_FOUND"));
}

TEST_F(KbctlTest, ArtifactsLsListsNamesSizesAndHashes) {
  v1::Job job;
  job.set_id("j");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  server_.AddJob(job);
  server_.AddArtifact("j", "samples.csv", "a,b\n1,2\n");
  const Result r = Run({"artifacts", "ls", "j"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("samples.csv +8 B +application/octet-stream +" +
                                   Sha256Hex("a,b\n1,2\n")));
  const Result json = Run({"-o", "json", "artifacts", "ls", "j"});
  google::protobuf::Struct doc;
  ASSERT_TRUE(FromJson(json.out, &doc).ok()) << json.out;
  EXPECT_EQ(doc.fields().at("job_id").string_value(), "j");
  EXPECT_EQ(doc.fields()
                .at("artifacts")
                .list_value()
                .values(0)
                .struct_value()
                .fields()
                .at("name")
                .string_value(),
            "samples.csv");
}

TEST_F(KbctlTest, ArtifactsGetWritesTheVerifiedBytesToTheFile) {
  v1::Job job;
  job.set_id("j");
  server_.AddJob(job);
  std::string bytes;
  for (int i = 0; i < 3500; ++i) bytes += static_cast<char>(i * 7);  // Several chunks.
  server_.AddArtifact("j", "samples.bin", bytes);
  const std::filesystem::path out = TempDir() / "s.bin";
  const Result r = Run({"artifacts", "get", "j", "samples.bin", "-f", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(out), bytes);
  EXPECT_THAT(r.err, HasSubstr("sha256 " + Sha256Hex(bytes) + " verified"));
}

TEST_F(KbctlTest, ArtifactsGetFailsLoudlyOnSha256MismatchAndWritesNothing) {
  v1::Job job;
  job.set_id("j");
  server_.AddJob(job);
  server_.AddArtifact("j", "trace.json", "{\"traceEvents\": []}", Sha256Hex("something else"));
  const std::filesystem::path out = TempDir() / "trace.json";
  const Result r = Run({"artifacts", "get", "j", "trace.json", "-f", out.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("kbctl: DATA_LOSS: artifact \"trace.json\" of job j: sha256 "
                               "mismatch"));
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out.string() + ".part"));
}

TEST_F(KbctlTest, ArtifactsGetTellsGlobalOutputFormatFromItsOwnFileFlag) {
  v1::Job job;
  job.set_id("j");
  server_.AddJob(job);
  server_.AddArtifact("j", "a.txt", "hello\n");
  const std::filesystem::path out = TempDir() / "a.txt";
  const Result r = Run({"-o", "json", "artifacts", "get", "j", "a.txt", "-f", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(out), "hello\n");
  google::protobuf::Struct doc;
  ASSERT_TRUE(FromJson(r.out, &doc).ok()) << r.out;
  EXPECT_EQ(doc.fields()
                .at("artifacts")
                .list_value()
                .values(0)
                .struct_value()
                .fields()
                .at("sha256")
                .string_value(),
            Sha256Hex("hello\n"));
}

TEST_F(KbctlTest, ArtifactsGetToStdoutWritesOnlyTheBytes) {
  v1::Job job;
  job.set_id("j");
  server_.AddJob(job);
  server_.AddArtifact("j", "a.txt", "hello\n");
  const Result r = Run({"artifacts", "get", "j", "a.txt", "-f", "-"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "hello\n");
}

TEST_F(KbctlTest, ArtifactsGetWithoutNameFetchesEveryArtifactIntoTheDirectory) {
  v1::Job job;
  job.set_id("j");
  server_.AddJob(job);
  server_.AddArtifact("j", "a.txt", "A");
  server_.AddArtifact("j", "b.txt", "B");
  const Result r = Run({"artifacts", "get", "j", "-f", TempDir().string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(TempDir() / "a.txt"), "A");
  EXPECT_EQ(ReadFile(TempDir() / "b.txt"), "B");
}

TEST_F(KbctlTest, ArtifactsGetOfUnknownArtifactIsNotFound) {
  const Result r = Run({"artifacts", "get", "j", "nope.csv", "-f", (TempDir() / "x").string()});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("kbctl: NOT_FOUND: name: job \"j\" has no artifact \"nope.csv\""));
}

TEST_F(KbctlTest, ProfileSubmitsAProfileJobPrintsTablesAndSavesTheTrace) {
  const std::string trace = "{\"traceEvents\": [{\"name\": \"softmax\", \"ph\": \"X\"}]}";
  server_.AddArtifact("job-1", "trace.json", trace);
  server_.set_script([](const v1::Job& submitted) {
    v1::Job done = submitted;
    done.set_state(v1::JOB_STATE_SUCCEEDED);
    v1::ProfileResult* p = done.mutable_result()->mutable_profile();
    v1::ProfileKernelRow* k = p->add_kernels();
    k->set_name("softmax_fused_row_kernel");
    k->set_category("reduction");
    k->set_calls(10);
    k->set_total_seconds(2e-4);
    v1::ProfileCategoryRow* c = p->add_categories();
    c->set_category("reduction");
    c->set_total_seconds(2e-4);
    c->set_percent_of_gpu_time(100);
    c->set_kernels(1);
    return std::vector<v1::Job>{done};
  });
  const std::filesystem::path out = TempDir() / "t.json";
  const Result r = Run({"profile", "softmax", "--variants", "naive,fused", "--shape", "64x64",
                        "--iterations", "5", "--ncu", "-f", out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  const v1::JobSpec spec = server_.submits()[0].spec();
  EXPECT_EQ(spec.kind(), v1::JOB_KIND_PROFILE);
  EXPECT_THAT(spec.variants(), ElementsAre("naive", "fused"));
  EXPECT_EQ(spec.profile().iterations(), 5);
  EXPECT_TRUE(spec.profile().ncu());
  EXPECT_THAT(r.out, ContainsRegex("softmax_fused_row_kernel +reduction +10 +200.0 us"));
  EXPECT_THAT(r.out, HasSubstr("By category:"));
  EXPECT_EQ(ReadFile(out), trace);
  EXPECT_THAT(r.err, HasSubstr("Trace: " + out.string()));
}

TEST_F(KbctlTest, ProfileWithoutTraceArtifactFails) {
  server_.set_script([](const v1::Job& submitted) {
    v1::Job done = submitted;
    done.set_state(v1::JOB_STATE_SUCCEEDED);
    done.mutable_result()->mutable_profile();
    return std::vector<v1::Job>{done};
  });
  const Result r = Run({"profile", "softmax", "--variants", "fused", "--shape", "8x8"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("without a trace artifact"));
}

TEST_F(KbctlTest, GlobalFlagsWorkAfterTheSubcommand) {
  const Result r = Run({"devices", "-o", "json", "--timeout", "5s"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.front(), '{');
}

}  // namespace
}  // namespace kbench::client
