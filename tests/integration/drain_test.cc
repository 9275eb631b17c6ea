// Integration: kbenchd's draining stop (server/kbenchd/draining.h). Under SIGTERM no call ends
// CANCELLED: a submit either returns its stored job or UNAVAILABLE, which a retry with the same
// idempotency key lands exactly once on the restarted daemon; the running job is re-queued and
// runs again; streams end UNAVAILABLE; the calls in flight hold the stop at most --drain-seconds.
#include <grpcpp/generic/generic_stub.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

using Clock = std::chrono::steady_clock;

const auto kRunning = [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; };

// Enough queue for a few seconds of submits from every thread (the default quota is 100).
const std::vector<std::string> kManyQueued = {"--default-max-queued-jobs", "100000"};

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Where the submitters send their calls: the first daemon, then the restarted one (its port is
// picked anew).
class Target {
 public:
  void Set(const std::string& address) {
    std::lock_guard lock(mu_);
    address_ = address;
  }
  std::string Get() const {
    std::lock_guard lock(mu_);
    return address_;
  }

 private:
  mutable std::mutex mu_;
  std::string address_;
};

// One idempotency key's story: every status its submits got, and the job it landed as.
struct KeyOutcome {
  std::vector<grpc::StatusCode> codes;
  std::string job_id;
};

// Submitters that each send quick jobs under fresh keys until told to stop, retrying each
// UNAVAILABLE (the same key, a short back-off) against the current target until it is accepted.
class Submitters {
 public:
  Submitters(Target* target, int threads) : target_(target) {
    for (int t = 0; t < threads; ++t) threads_.emplace_back([this, t] { Run(t); });
  }
  ~Submitters() { Join(); }

  void StopNewKeys() { stop_new_ = true; }
  void Join() {
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  const std::map<std::string, KeyOutcome>& outcomes() const { return outcomes_; }

 private:
  static constexpr auto kRetryFor = std::chrono::seconds(20);

  void Run(int thread) {
    Connection connection;
    for (int i = 0; !stop_new_; ++i) {
      const std::string key = absl::StrCat("drain-", thread, "-", i);
      KeyOutcome outcome = SubmitUntilAccepted(key, connection);
      std::lock_guard lock(mu_);
      outcomes_[key] = std::move(outcome);
    }
  }

  // One connection per thread, as a client keeps, kept until the target moves; it reconnects
  // within 200 ms of a restart on the same address (gRPC's default back-off starts at 1 s).
  class Connection {
   public:
    v1::KbenchService::Stub& To(const std::string& address) {
      if (address != address_) {
        grpc::ChannelArguments args;
        args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
        args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 200);
        stub_ = v1::KbenchService::NewStub(
            grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
        address_ = address;
      }
      return *stub_;
    }

   private:
    std::string address_;
    std::unique_ptr<v1::KbenchService::Stub> stub_;
  };

  KeyOutcome SubmitUntilAccepted(const std::string& key, Connection& connection) {
    KeyOutcome outcome;
    const auto until = Clock::now() + kRetryFor;
    auto backoff = std::chrono::milliseconds(20);
    while (Clock::now() < until) {
      v1::KbenchService::Stub& stub = connection.To(target_->Get());
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      v1::SubmitJobRequest request;
      *request.mutable_spec() = QuickCpuSpec();
      request.set_idempotency_key(key);
      v1::SubmitJobResponse response;
      const grpc::Status s = stub.SubmitJob(&context, request, &response);
      outcome.codes.push_back(s.error_code());
      if (s.ok()) {
        outcome.job_id = response.job().id();
        return outcome;
      }
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE) return outcome;
      // Polling a restarting daemon, bounded by kRetryFor, as a client would.
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(200));
    }
    return outcome;
  }

  Target* const target_;
  std::atomic<bool> stop_new_{false};
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::map<std::string, KeyOutcome> outcomes_;
};

// Every job of the store, by id (ListJobs pages).
std::map<std::string, v1::Job> AllJobs(Daemon& daemon) {
  std::map<std::string, v1::Job> jobs;
  std::string token;
  do {
    grpc::ClientContext context;
    v1::ListJobsRequest request;
    request.set_page_size(1000);
    request.set_page_token(token);
    v1::ListJobsResponse response;
    const grpc::Status s = daemon.stub().ListJobs(&context, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    if (!s.ok()) break;
    for (const v1::Job& j : response.jobs()) jobs[j.id()] = j;
    token = response.next_page_token();
  } while (!token.empty());
  return jobs;
}

// On TCP and on the Unix socket, whose calls are refused by the handlers rather than as their
// headers arrive, and whose connections kbenchd closes itself.
class KbenchdDrainUnderLoad : public ::testing::TestWithParam<bool> {
 protected:
  std::vector<std::string> DaemonArgs(const TempDir& dir) const {
    std::vector<std::string> args = kManyQueued;
    if (GetParam()) args.insert(args.end(), {"--unix-socket", dir.path() + "/kbenchd.sock"});
    return args;
  }
};

TEST_P(KbenchdDrainUnderLoad, SubmitsEndOkOrUnavailableAndLandOnceAfterTheRestart) {
  TempDir dir;
  std::string running_id;
  Target target;
  std::unique_ptr<Submitters> submitters;
  {
    Daemon first(dir.path(), DaemonArgs(dir));
    absl::StatusOr<v1::Job> running = Submit(first.stub(), LongCpuSpec(30));
    ASSERT_TRUE(running.ok()) << running.status();
    running_id = running->id();
    ASSERT_EQ(WaitFor(first.stub(), running_id, kRunning).state(), v1::JOB_STATE_RUNNING);
    target.Set(first.address());
    submitters = std::make_unique<Submitters>(&target, 8);
    // A second of load, so that the stop lands among submits in every stage.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto stop = Clock::now();
    const int status = first.Stop(SIGTERM);
    const double stop_seconds = SecondsSince(stop);
    ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 0);
    // Well within the default 10 s bound: the calls in flight are short.
    EXPECT_LT(stop_seconds, 5.0);
    std::printf("SIGTERM to exit: %.2f s\n", stop_seconds);
  }
  submitters->StopNewKeys();
  Daemon again(dir.path(), DaemonArgs(dir));
  target.Set(again.address());
  submitters->Join();

  int ok_first = 0, unavailable = 0, cancelled = 0, other = 0;
  for (const auto& [key, outcome] : submitters->outcomes()) {
    for (grpc::StatusCode code : outcome.codes) {
      cancelled += code == grpc::StatusCode::CANCELLED;
      unavailable += code == grpc::StatusCode::UNAVAILABLE;
      other += code != grpc::StatusCode::OK && code != grpc::StatusCode::UNAVAILABLE &&
               code != grpc::StatusCode::CANCELLED;
    }
    ok_first += outcome.codes.front() == grpc::StatusCode::OK;
    EXPECT_FALSE(outcome.job_id.empty()) << key << " never landed";
  }
  std::printf("keys %zu: accepted at once %d, UNAVAILABLE answers %d (retried)\n",
              submitters->outcomes().size(), ok_first, unavailable);
  EXPECT_EQ(cancelled, 0);
  EXPECT_EQ(other, 0);
  EXPECT_GT(unavailable, 0) << "the stop landed between submits: nothing was refused";

  // Every key is in the store once, as the job its submit was told.
  std::map<std::string, int> jobs_per_key;
  for (const auto& [id, job] : AllJobs(again)) ++jobs_per_key[job.idempotency_key()];
  for (const auto& [key, outcome] : submitters->outcomes()) {
    EXPECT_EQ(jobs_per_key[key], 1) << key;
    absl::StatusOr<v1::Job> stored = Submit(again.stub(), QuickCpuSpec(), key);
    ASSERT_TRUE(stored.ok()) << stored.status();
    EXPECT_EQ(stored->id(), outcome.job_id) << key;
  }

  // The job that was running was re-queued, not failed, and runs again.
  const v1::Job rerun = WaitFor(again.stub(), running_id, [](const v1::Job& j) {
    return j.state() == v1::JOB_STATE_RUNNING && j.attempts() == 2;
  });
  EXPECT_EQ(rerun.attempts(), 2) << v1::JobState_Name(rerun.state()) << " " << rerun.error();
}

INSTANTIATE_TEST_SUITE_P(Transports, KbenchdDrainUnderLoad, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "UnixSocket" : "Tcp"; });

TEST(KbenchdDrain, WatchJobEndsUnavailableNotCancelled) {
  TempDir dir;
  Daemon daemon(dir.path());
  absl::StatusOr<v1::Job> job = Submit(daemon.stub(), LongCpuSpec(30));
  ASSERT_TRUE(job.ok()) << job.status();
  WaitFor(daemon.stub(), job->id(), kRunning);
  auto stub = v1::KbenchService::NewStub(
      grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::WatchJobRequest request;
  request.set_job_id(job->id());
  auto reader = stub->WatchJob(&context, request);
  v1::WatchJobResponse first;
  ASSERT_TRUE(reader->Read(&first));  // the stream is open

  std::thread stop([&daemon] { daemon.Stop(SIGTERM); });
  v1::WatchJobResponse update;
  while (reader->Read(&update)) {
  }
  const grpc::Status ended = reader->Finish();
  stop.join();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE) << ended.error_message();
  EXPECT_NE(ended.error_message().find("shutting down"), std::string::npos)
      << ended.error_message();
}

// kbctl against a daemon that is restarting: its keyed submit is refused (nothing listens on
// the socket) and sent again until the restarted daemon takes it, once.
TEST(KbenchdDrain, KbctlRetriesAKeyedSubmitUntilTheRestartedDaemonTakesIt) {
  TempDir dir;
  const std::vector<std::string> args = {"--unix-socket", dir.path() + "/kbenchd.sock"};
  std::string address;
  {
    Daemon first(dir.path() + "/data", args);
    address = first.address();
  }  // stopped by SIGTERM
  std::future<KbctlRun> submit = std::async(std::launch::async, [&] {
    return RunKbctl(address,
                    "bench square --variant host_loop --shape 256x256 --device cpu "
                    "--idempotency-key restart-1 --no-wait",
                    dir.path());
  });
  // Starting takes far longer than kbctl's first try: that one finds no daemon.
  Daemon again(dir.path() + "/data", args);
  const KbctlRun run = submit.get();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("submitting again with idempotency key \"restart-1\""), std::string::npos)
      << run.err;
  int landed = 0;
  for (const auto& [id, job] : AllJobs(again)) {
    if (job.idempotency_key() != "restart-1") continue;
    ++landed;
    EXPECT_EQ(id + "\n", run.out);
  }
  EXPECT_EQ(landed, 1);
}

// A GetJob whose request never comes: gRPC hands it to its handler, which waits for the request
// (server/api/message_limits.h reads it itself), so it stays in flight until the stop's bound.
class HeldCall {
 public:
  explicit HeldCall(std::shared_ptr<grpc::Channel> channel) : stub_(channel) {
    call_ = stub_.PrepareCall(&context_, "/kbench.v1.KbenchService/GetJob", &queue_);
    call_->StartCall(this);
    void* tag = nullptr;
    bool ok = false;
    queue_.Next(&tag, &ok);
  }
  // How the call ended, once the server has ended it.
  grpc::Status Finish() {
    grpc::Status status;
    call_->Finish(&status, this);
    void* tag = nullptr;
    bool ok = false;
    queue_.Next(&tag, &ok);
    return status;
  }

  ~HeldCall() {
    context_.TryCancel();
    queue_.Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (queue_.Next(&tag, &ok)) {
    }
  }

 private:
  grpc::GenericStub stub_;
  grpc::ClientContext context_;
  grpc::CompletionQueue queue_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
};

TEST(KbenchdDrain, WhileACallIsInFlightNewCallsAreRefusedAndHealthIsNotServing) {
  TempDir dir;
  Daemon daemon(dir.path(), {"--drain-seconds", "2"});
  auto channel = grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials());
  HeldCall held(channel);
  // Calls on one connection reach kbenchd in order: once this one is answered, the held call
  // has been taken too.
  ASSERT_TRUE(Submit(*v1::KbenchService::NewStub(channel), QuickCpuSpec()).ok());

  const auto stop = Clock::now();
  ASSERT_EQ(kill(daemon.pid(), SIGTERM), 0);
  // Polling until the signal is handled, bounded by the drain (the process exits after it).
  KbctlRun health;
  do {
    health = RunKbctl(daemon.address(), "health", dir.path());
  } while (health.out != "NOT_SERVING\n" && SecondsSince(stop) < 2);
  EXPECT_EQ(health.out, "NOT_SERVING\n") << health.err;
  const grpc::Status refused = SubmitStatus(daemon, QuickCpuSpec());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE) << refused.error_message();
  EXPECT_NE(refused.error_message().find("shutting down; retry"), std::string::npos)
      << refused.error_message();

  const int status = daemon.Stop(SIGTERM);
  const double stop_seconds = SecondsSince(stop);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;
  // The held call kept the stop waiting for the whole bound, and not much longer.
  EXPECT_GE(stop_seconds, 1.9);
  EXPECT_LT(stop_seconds, 5.0);
  std::printf("SIGTERM to exit with a call held: %.2f s (bound 2 s)\n", stop_seconds);
  const grpc::Status cut = held.Finish();
  EXPECT_EQ(cut.error_code(), grpc::StatusCode::UNAVAILABLE) << cut.error_message();
}

}  // namespace
}  // namespace kbench::testing
