// A real kbenchd for integration tests.
#include "tests/integration/daemon.h"

#include <openssl/sha.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace kbench::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "kbench-test-XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  if (made == nullptr) std::abort();
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

bool Daemon::AwaitReady(int fd) {
  // Reads stdout line by line until the ready line, the end of the stream or the deadline; the
  // daemon prints its bound addresses before it.
  const auto until = std::chrono::steady_clock::now() + kReadyTimeout;
  std::string pending;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[512];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) return false;  // kbenchd exited before it was ready
    pending.append(buf, static_cast<size_t>(n));
    size_t eol;
    while ((eol = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, eol);
      pending.erase(0, eol + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (absl::StartsWith(line, "kbenchd: listening on ")) address_ = line.substr(22);
      if (absl::StartsWith(line, "kbenchd: metrics on ")) metrics_address_ = line.substr(20);
      if (line == "kbenchd: ready") return !address_.empty();
    }
  }
}

Daemon::Daemon(const std::string& data_dir, std::vector<std::string> extra_args) {
  int out[2];
  if (pipe(out) != 0) std::abort();
  std::vector<std::string> args = {KBENCHD_PATH, "--data-dir", data_dir, "--log-level", "warn"};
  const auto given = [&](const char* flag) {
    return std::find(extra_args.begin(), extra_args.end(), flag) != extra_args.end();
  };
  // The Unix socket mode has no TCP address; every other daemon listens on loopback, open
  // (--open) unless it was given credentials to check.
  if (!given("--unix-socket")) args.insert(args.end(), {"--listen", "127.0.0.1:0"});
  if (!given("--unix-socket") && !given("--auth-file") && !given("--tls-client-ca") &&
      !given("--open")) {
    args.push_back("--open");
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  const bool ready = AwaitReady(out[0]);
  // Keep draining stdout in the background so the daemon never blocks on a full pipe.
  std::thread([fd = out[0]] {
    char buf[512];
    while (read(fd, buf, sizeof(buf)) > 0) {
    }
    close(fd);
  }).detach();
  if (!ready) {
    ADD_FAILURE() << "kbenchd did not print \"kbenchd: ready\" within " << kReadyTimeout.count()
                  << " s";
    Stop(SIGKILL);
    // A stub to nowhere: calls fail with UNAVAILABLE instead of dereferencing null.
    address_ = "127.0.0.1:1";
  }
  channel_ = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
  stub_ = v1::KbenchService::NewStub(channel_);
}

Daemon::~Daemon() {
  if (pid_ > 0) Stop(SIGTERM);
}

int Daemon::Stop(int signal) {
  if (pid_ <= 0) return 0;
  // Close our connection first: a server shutting down waits for its clients to hang up.
  stub_.reset();
  channel_.reset();
  kill(pid_, signal);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

std::vector<pid_t> Daemon::ChildPids(const std::string& needle) const {
  std::vector<pid_t> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // Field 4 (after the ")" that ends the command name) is the parent pid.
    const size_t close = content.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(content.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid != pid_) continue;
    std::ifstream cmd(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (absl::StrContains(cmdline, needle)) pids.push_back(pid);
  }
  return pids;
}

v1::JobSpec QuickCpuSpec() {
  v1::JobSpec spec;
  spec.set_kernel("square");
  spec.add_variants("host_loop");
  spec.add_shape(256);
  spec.add_shape(256);
  spec.set_device("cpu");
  spec.mutable_stopping()->set_min_samples(5);
  spec.mutable_stopping()->set_min_time_seconds(0.01);
  spec.mutable_stopping()->set_max_noise(1.0);
  spec.mutable_stopping()->set_timeout_seconds(10);
  return spec;
}

v1::JobSpec LongCpuSpec(double seconds) {
  v1::JobSpec spec = QuickCpuSpec();
  spec.mutable_stopping()->set_max_noise(0);
  spec.mutable_stopping()->set_min_time_seconds(seconds);
  spec.mutable_stopping()->set_timeout_seconds(seconds);
  return spec;
}

absl::StatusOr<v1::Job> Submit(v1::KbenchService::Stub& stub, const v1::JobSpec& spec,
                               const std::string& idempotency_key,
                               std::chrono::milliseconds timeout) {
  grpc::ClientContext ctx;
  if (timeout.count() > 0) ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  v1::SubmitJobRequest req;
  *req.mutable_spec() = spec;
  req.set_idempotency_key(idempotency_key);
  v1::SubmitJobResponse resp;
  const grpc::Status s = stub.SubmitJob(&ctx, req, &resp);
  if (!s.ok())
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  return resp.job();
}

grpc::Status SubmitStatus(Daemon& daemon, const v1::JobSpec& spec) {
  grpc::ClientContext ctx;
  v1::SubmitJobRequest req;
  *req.mutable_spec() = spec;
  v1::SubmitJobResponse resp;
  return daemon.stub().SubmitJob(&ctx, req, &resp);
}

v1::Job RunToEnd(Daemon& daemon, const v1::JobSpec& spec, std::chrono::milliseconds timeout) {
  absl::StatusOr<v1::Job> job = Submit(daemon.stub(), spec);
  EXPECT_TRUE(job.ok()) << job.status();
  if (!job.ok()) return {};
  return WaitFor(
      daemon.stub(), job->id(), [](const v1::Job& j) { return IsTerminal(j.state()); }, timeout);
}

v1::JobSpec CompileSpec(const std::string& op, v1::UserKernelForm form, const std::string& code,
                        const std::string& entry) {
  v1::JobSpec spec;
  spec.set_kind(v1::JOB_KIND_COMPILE);
  spec.set_kernel(op);
  spec.set_device("cpu");
  v1::UserKernel* uk = spec.add_user_kernels();
  uk->set_form(form);
  uk->set_code(code);
  uk->set_entry(entry);
  uk->set_arch("sm_90a");
  return spec;
}

absl::StatusOr<ArtifactRead> ReadArtifact(v1::KbenchService::Stub& stub, const std::string& job_id,
                                          const std::string& name) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  v1::GetArtifactRequest request;
  request.set_job_id(job_id);
  request.set_name(name);
  auto reader = stub.GetArtifact(&ctx, request);
  v1::GetArtifactResponse chunk;
  ArtifactRead read;
  while (reader->Read(&chunk)) {
    if (chunk.has_info()) read.info = chunk.info();
    read.bytes += chunk.data();
  }
  const grpc::Status s = reader->Finish();
  if (!s.ok())
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  return read;
}

std::string Sha256Hex(const std::string& bytes) {
  unsigned char hash[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), hash);
  std::string hex;
  for (unsigned char b : hash) absl::StrAppend(&hex, absl::Hex(b, absl::kZeroPad2));
  return hex;
}

std::unique_ptr<grpc::ClientContext> ContextFor(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
  return context;
}

bool IsTerminal(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

std::vector<v1::Job> WatchToEnd(v1::KbenchService::Stub& stub, const std::string& job_id) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  v1::WatchJobRequest req;
  req.set_job_id(job_id);
  auto reader = stub.WatchJob(&ctx, req);
  std::vector<v1::Job> seen;
  v1::WatchJobResponse resp;
  while (reader->Read(&resp)) seen.push_back(resp.job());
  const grpc::Status s = reader->Finish();
  EXPECT_TRUE(s.ok()) << s.error_message();
  return seen;
}

v1::Job WaitFor(v1::KbenchService::Stub& stub, const std::string& job_id,
                const std::function<bool(const v1::Job&)>& predicate,
                std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  v1::Job job;
  while (std::chrono::steady_clock::now() < until) {
    grpc::ClientContext ctx;
    v1::GetJobRequest req;
    req.set_job_id(job_id);
    v1::GetJobResponse resp;
    if (stub.GetJob(&ctx, req, &resp).ok()) {
      job = resp.job();
      if (predicate(job)) return job;
    }
    // Polling GetJob (not a sleep standing in for an event): bounded by the deadline.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "job " << job_id << " did not reach the expected condition; last state "
                << v1::JobState_Name(job.state()) << " error: " << job.error();
  return job;
}

std::vector<v1::Job> WaitUntilTerminal(v1::KbenchService::Stub& stub,
                                       const std::vector<std::string>& job_ids,
                                       std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::map<std::string, v1::Job> open;
  for (const std::string& id : job_ids) open[id].set_id(id);
  while (true) {
    for (auto it = open.begin(); it != open.end();) {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      v1::GetJobRequest req;
      req.set_job_id(it->first);
      v1::GetJobResponse resp;
      const bool answered = stub.GetJob(&ctx, req, &resp).ok();
      if (answered) it->second = resp.job();
      it = answered && IsTerminal(resp.job().state()) ? open.erase(it) : std::next(it);
    }
    if (open.empty() || std::chrono::steady_clock::now() >= until) break;
    // Polling GetJob (not a sleep standing in for an event): bounded by the deadline.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::vector<v1::Job> left;
  for (auto& [id, job] : open) left.push_back(std::move(job));
  return left;
}

KbctlRun RunKbctl(const std::string& address, const std::string& args,
                  const std::string& scratch_dir, int timeout_seconds) {
  static std::atomic<int> runs{0};
  const std::string err_path = scratch_dir + "/kbctl_stderr_" + std::to_string(runs++);
  const std::string cmd = "timeout " + std::to_string(timeout_seconds) + " " + KBCTL_PATH +
                          " --server " + address + " " + args + " 2>" + err_path;
  KbctlRun run;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) run.out.append(buf.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  run.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  return run;
}

}  // namespace kbench::testing
