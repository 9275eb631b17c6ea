// Property test against a real kbenchd: up to 10,000 random, mutated and mistyped requests
// (every method, every field, boundary values, raw bytes of another message or none) within
// a bounded time. Every reply must be OK or a documented error code with a message (a request
// that does not parse is refused, never accepted), the daemon must keep serving (a job
// submitted afterwards succeeds), and its store must pass SQLite's integrity_check once it
// stops. The seed is printed: a failure replays with KBENCH_FUZZ_SEED.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kbench/v1/service.grpc.pb.h"
#include "tests/integration/daemon.h"
#include "tests/integration/raw_call.h"

namespace kbench::testing {
namespace {

constexpr int kMaxRequests = 10000;
// CI bound on the whole loop, whatever the machine's speed.
constexpr auto kTimeBudget = std::chrono::seconds(60);
// Each call's deadline: a stream of a running job would go on to its end.
constexpr auto kUnaryTimeout = std::chrono::milliseconds(5000);
constexpr auto kStreamTimeout = std::chrono::milliseconds(300);

using Rng = std::mt19937_64;

struct Method {
  std::string path;
  bool streaming;
};

const std::vector<Method>& Methods() {
  static const auto* methods = new std::vector<Method>{
      {"/kbench.v1.KbenchService/ListKernels", false},
      {"/kbench.v1.KbenchService/ListDevices", false},
      {"/kbench.v1.KbenchService/SubmitJob", false},
      {"/kbench.v1.KbenchService/GetJob", false},
      {"/kbench.v1.KbenchService/WatchJob", true},
      {"/kbench.v1.KbenchService/CancelJob", false},
      {"/kbench.v1.KbenchService/ListJobs", false},
      {"/kbench.v1.KbenchService/GetArtifact", true},
  };
  return *methods;
}

// Values at the edges of each type, and garbage.
int64_t AnyInt64(Rng& rng) {
  static const int64_t kEdges[] = {0,
                                   1,
                                   -1,
                                   2,
                                   64,
                                   4096,
                                   1 << 20,
                                   std::numeric_limits<int32_t>::max(),
                                   std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::min()};
  if (rng() % 2) return kEdges[rng() % std::size(kEdges)];
  return static_cast<int64_t>(rng());
}

double AnyDouble(Rng& rng) {
  static const double kEdges[] = {0.0,
                                  -1.0,
                                  1e-9,
                                  0.5,
                                  1.0,
                                  1e300,
                                  -0.0,
                                  std::numeric_limits<double>::quiet_NaN(),
                                  std::numeric_limits<double>::infinity()};
  if (rng() % 2) return kEdges[rng() % std::size(kEdges)];
  return std::uniform_real_distribution<double>(-10, 10)(rng);
}

std::string AnyString(Rng& rng, const std::vector<std::string>& plausible) {
  switch (rng() % 6) {
    case 0:
      return "";
    case 1:
      return std::string(1 + rng() % 4096, static_cast<char>('a' + rng() % 26));
    case 2: {
      // Control characters, NUL and multi-byte UTF-8 (proto3 strings must be UTF-8: invalid
      // bytes come from Mutate, through the raw path).
      static const char* kPieces[] = {"\0", "\n", "\x7f", "\xc3\xa9", "\xe2\x98\x83", "%s", " "};
      std::string text;
      for (int i = rng() % 16; i > 0; --i) text += kPieces[rng() % std::size(kPieces)];
      return text;
    }
    case 3:
      return "../../etc/passwd";
    default:
      return plausible[rng() % plausible.size()];
  }
}

const std::vector<std::string> kKernels = {"square", "add",        "softmax", "matmul", "gelu_tanh",
                                           "mlp",    "reduce_sum", "copy",    "nope"};
const std::vector<std::string> kVariants = {"host_loop", "naive", "fused", "cublas", "x"};
const std::vector<std::string> kDevices = {"cpu", "cuda:0", "cuda:any", "cuda:-1", "tpu"};

v1::JobSpec RandomSpec(Rng& rng) {
  v1::JobSpec spec;
  if (rng() % 8) spec.set_kind(static_cast<v1::JobKind>(rng() % 4));
  spec.set_kernel(AnyString(rng, kKernels));
  for (int i = rng() % 4; i > 0; --i) spec.add_variants(AnyString(rng, kVariants));
  for (int i = rng() % 5; i > 0; --i) spec.add_shape(rng() % 3 ? 1 + rng() % 128 : AnyInt64(rng));
  spec.set_dtype(static_cast<v1::DType>(rng() % 7));
  spec.set_device(AnyString(rng, kDevices));
  spec.set_priority(static_cast<int32_t>(AnyInt64(rng)));
  spec.set_mode(static_cast<v1::MeasureMode>(rng() % 6));
  if (rng() % 2) {
    v1::StoppingCriteria* s = spec.mutable_stopping();
    s->set_max_noise(AnyDouble(rng));
    s->set_min_samples(static_cast<int32_t>(rng() % 3 ? rng() % 5 : AnyInt64(rng)));
    s->set_min_time_seconds(rng() % 3 ? 0.001 : AnyDouble(rng));
    s->set_timeout_seconds(rng() % 3 ? 0.05 : AnyDouble(rng));
  }
  spec.set_seed(rng());
  for (int i = rng() % 3; i > 0; --i)
    (*spec.mutable_params())[AnyString(rng, {"layers", "k"})] = AnyInt64(rng);
  if (rng() % 4 == 0) spec.mutable_profile()->set_iterations(static_cast<int32_t>(AnyInt64(rng)));
  spec.set_owner(AnyString(rng, {"alice"}));
  return spec;
}

// A well-typed request for `method`, every field random.
std::string TypedRequest(Rng& rng, const std::string& method, const std::vector<std::string>& ids) {
  std::vector<std::string> known = ids;
  known.push_back("j-0000000000000000");
  if (method.ends_with("SubmitJob")) {
    v1::SubmitJobRequest r;
    *r.mutable_spec() = RandomSpec(rng);
    if (rng() % 3 == 0) r.set_idempotency_key(AnyString(rng, {"key-1", "key-2"}));
    return r.SerializeAsString();
  }
  if (method.ends_with("ListJobs")) {
    v1::ListJobsRequest r;
    r.set_state(static_cast<v1::JobState>(rng() % 8));
    r.set_kernel(AnyString(rng, kKernels));
    r.set_device(AnyString(rng, kDevices));
    r.set_page_size(static_cast<int32_t>(AnyInt64(rng)));
    r.set_page_token(AnyString(rng, {"a2JlbmNoLXBhZ2UtdjE6NDI=", "a2JlbmNoLXBhZ2UtdjE6MA=="}));
    r.set_view(static_cast<v1::JobView>(rng() % 4));
    return r.SerializeAsString();
  }
  if (method.ends_with("GetArtifact")) {
    v1::GetArtifactRequest r;
    r.set_job_id(AnyString(rng, known));
    r.set_name(AnyString(rng, {"samples.csv", "trace.json"}));
    return r.SerializeAsString();
  }
  if (method.ends_with("ListKernels") || method.ends_with("ListDevices")) return "";
  v1::GetJobRequest r;  // GetJob, WatchJob and CancelJob take the same single field
  r.set_job_id(AnyString(rng, known));
  return r.SerializeAsString();
}

// Flips, truncates or extends a serialized request.
std::string Mutate(Rng& rng, std::string bytes) {
  for (int edits = 1 + rng() % 4; edits > 0; --edits) {
    switch (rng() % 3) {
      case 0:
        if (!bytes.empty()) bytes[rng() % bytes.size()] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:
        bytes.resize(bytes.empty() ? 0 : rng() % bytes.size());
        break;
      default:
        bytes.insert(bytes.empty() ? 0 : rng() % bytes.size(), 1, static_cast<char>(rng()));
    }
  }
  return bytes;
}

// The codes the API documents for bad input and for a busy or refusing server.
bool Documented(grpc::StatusCode code) {
  static const std::set<grpc::StatusCode> kDocumented = {
      grpc::StatusCode::OK,
      grpc::StatusCode::INVALID_ARGUMENT,
      grpc::StatusCode::NOT_FOUND,
      grpc::StatusCode::FAILED_PRECONDITION,
      grpc::StatusCode::RESOURCE_EXHAUSTED,
      grpc::StatusCode::ALREADY_EXISTS,
      grpc::StatusCode::PERMISSION_DENIED,
      grpc::StatusCode::UNAVAILABLE,
      grpc::StatusCode::OUT_OF_RANGE,
      // Ours: the test's own deadline on streams and on a loaded CI machine.
      grpc::StatusCode::DEADLINE_EXCEEDED,
  };
  return kDocumented.contains(code);
}

// Whether `bytes` parse as `method`'s request: those that do not must be refused.
bool ParsesAs(const std::string& method, const std::string& bytes) {
  std::unique_ptr<google::protobuf::Message> request;
  if (method.ends_with("SubmitJob"))
    request = std::make_unique<v1::SubmitJobRequest>();
  else if (method.ends_with("ListJobs"))
    request = std::make_unique<v1::ListJobsRequest>();
  else if (method.ends_with("GetArtifact"))
    request = std::make_unique<v1::GetArtifactRequest>();
  else if (method.ends_with("ListKernels"))
    request = std::make_unique<v1::ListKernelsRequest>();
  else if (method.ends_with("ListDevices"))
    request = std::make_unique<v1::ListDevicesRequest>();
  else
    request = std::make_unique<v1::GetJobRequest>();
  return request->ParseFromString(bytes);
}

std::string IntegrityCheck(const std::string& db_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return "cannot open " + db_path;
  }
  std::string result;
  sqlite3_exec(
      db, "PRAGMA integrity_check",
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) += values[0] ? values[0] : "";
        return 0;
      },
      &result, nullptr);
  sqlite3_close(db);
  return result;
}

void CancelEverything(v1::KbenchService::Stub& stub) {
  for (v1::JobState state : {v1::JOB_STATE_QUEUED, v1::JOB_STATE_RUNNING}) {
    std::string token;
    do {
      grpc::ClientContext ctx;
      v1::ListJobsRequest request;
      request.set_state(state);
      request.set_page_size(500);
      request.set_page_token(token);
      v1::ListJobsResponse response;
      ASSERT_TRUE(stub.ListJobs(&ctx, request, &response).ok());
      for (const v1::Job& job : response.jobs()) {
        grpc::ClientContext cancel_ctx;
        v1::CancelJobRequest cancel;
        cancel.set_job_id(job.id());
        v1::CancelJobResponse cancelled;
        stub.CancelJob(&cancel_ctx, cancel, &cancelled);  // may race its end: either is fine
      }
      token = response.next_page_token();
    } while (!token.empty());
  }
}

TEST(RequestFuzz, EveryReplyIsDocumentedAndTheDaemonAndItsStoreSurvive) {
  const char* seed_env = std::getenv("KBENCH_FUZZ_SEED");
  const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : std::random_device{}();
  std::printf("KBENCH_FUZZ_SEED=%llu\n", static_cast<unsigned long long>(seed));
  Rng rng(seed);
  TempDir dir;
  Daemon daemon(dir.path(), {"--no-cuda"});
  grpc::GenericStub stub(daemon.channel());

  std::vector<std::string> ids;
  std::map<std::string, int> unexplained;
  std::map<grpc::StatusCode, int> codes;
  int malformed_requests = 0;
  const auto start = std::chrono::steady_clock::now();
  int sent = 0;
  for (; sent < kMaxRequests && std::chrono::steady_clock::now() - start < kTimeBudget; ++sent) {
    const Method& method = Methods()[rng() % Methods().size()];
    std::string bytes = TypedRequest(rng, method.path, ids);
    const int shape = rng() % 4;
    if (shape == 1) bytes = Mutate(rng, bytes);
    // Another method's request: a mistyped message of the right wire format.
    if (shape == 2) bytes = TypedRequest(rng, Methods()[rng() % Methods().size()].path, ids);
    if (shape == 3 && rng() % 2) bytes = Mutate(rng, std::string(rng() % 64, '\x08'));
    std::string reply;
    const grpc::Status status = RawCall(stub, method.path, bytes,
                                        method.streaming ? kStreamTimeout : kUnaryTimeout, &reply);
    ++codes[status.error_code()];
    // Every refusal is explained (issue 25): bytes that do not parse as the method's request
    // (proto3 strings must be UTF-8) are INVALID_ARGUMENT naming the defect, never gRPC's
    // INTERNAL (or, on a callback stream, UNIMPLEMENTED) with no message.
    const bool malformed = !ParsesAs(method.path, bytes);
    if (malformed) ++malformed_requests;
    std::string wrong;
    if (!Documented(status.error_code())) wrong = "an undocumented code";
    if (!status.ok() && status.error_message().empty()) wrong = "no message";
    if (malformed && status.ok()) wrong = "a malformed request accepted";
    if (!wrong.empty()) {
      const std::string key = method.path + " " + std::to_string(status.error_code()) + " (" +
                              wrong + "): " + status.error_message().substr(0, 200);
      if (++unexplained[key] == 1) ADD_FAILURE() << "request " << sent << " -> " << key;
    }
    // Real job ids feed later GetJob, WatchJob, CancelJob and GetArtifact calls.
    v1::SubmitJobResponse submitted;
    if (status.ok() && method.path.ends_with("SubmitJob") && submitted.ParseFromString(reply) &&
        ids.size() < 64) {
      ids.push_back(submitted.job().id());
    }
  }
  std::printf("%d requests in %.1f s; codes:", sent,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  for (const auto& [code, n] : codes) std::printf(" %d:%d", static_cast<int>(code), n);
  std::printf("\nmalformed requests: %d\n", malformed_requests);

  // Still serving: the fuzzing's own jobs (some with long timeouts) are cancelled, then a
  // well-formed job succeeds.
  CancelEverything(daemon.stub());
  v1::JobSpec spec = QuickCpuSpec();
  spec.set_priority(100);  // the highest a client may ask for
  absl::StatusOr<v1::Job> job = Submit(daemon.stub(), spec);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(
      WaitFor(daemon.stub(), job->id(), [](const v1::Job& j) { return IsTerminal(j.state()); })
          .state(),
      v1::JOB_STATE_SUCCEEDED);

  daemon.Stop(SIGTERM);
  EXPECT_EQ(IntegrityCheck((std::filesystem::path(dir.path()) / "kbench.db").string()), "ok");
}

}  // namespace
}  // namespace kbench::testing
