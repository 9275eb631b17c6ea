// Test fixture pieces: a real kbenchd child process on an ephemeral loopback port with a
// temporary data directory, and a gRPC stub to it.
#pragma once

#include <grpcpp/grpcpp.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/service.grpc.pb.h"

namespace kbench::testing {

// A temporary directory removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class Daemon {
 public:
  // Starts kbenchd (path from the KBENCHD_PATH compile definition) with --listen 127.0.0.1:0
  // (plus --open unless `extra_args` has --auth-file, --tls-client-ca or --open; neither when
  // it has --unix-socket) and --data-dir `data_dir`, and waits up to kReadyTimeout for its
  // "ready" line. On failure
  // the test fails, the process is killed and stub() still works (its calls fail UNAVAILABLE).
  explicit Daemon(const std::string& data_dir, std::vector<std::string> extra_args = {});
  // SIGTERM and wait, unless already stopped.
  ~Daemon();

  const std::string& address() const { return address_; }
  const std::string& metrics_address() const { return metrics_address_; }
  pid_t pid() const { return pid_; }
  v1::KbenchService::Stub& stub() { return *stub_; }
  std::shared_ptr<grpc::Channel> channel() { return channel_; }

  // Sends `signal` and waits for the process; returns its wait status.
  int Stop(int signal);
  // Pids of the daemon's child processes whose command line contains `needle`.
  std::vector<pid_t> ChildPids(const std::string& needle) const;

 private:
  static constexpr std::chrono::seconds kReadyTimeout{60};
  // Reads the daemon's stdout (fd) until its ready line; false on exit or timeout.
  bool AwaitReady(int fd);

  pid_t pid_ = -1;
  std::string address_;
  std::string metrics_address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::KbenchService::Stub> stub_;
};

// Rows of a query on a daemon's store (SQLite or PostgreSQL), each value as text.
using Rows = std::vector<std::vector<std::string>>;

// A benchmark spec on the cpu device that finishes in well under a second.
v1::JobSpec QuickCpuSpec();
// A cpu benchmark that samples for `seconds` unless cancelled (its noise target is 0).
v1::JobSpec LongCpuSpec(double seconds);

// `timeout` bounds the call (no deadline when zero).
absl::StatusOr<v1::Job> Submit(v1::KbenchService::Stub& stub, const v1::JobSpec& spec,
                               const std::string& idempotency_key = "",
                               std::chrono::milliseconds timeout = {});
// SubmitJob's status alone (a refusal's code and message).
grpc::Status SubmitStatus(Daemon& daemon, const v1::JobSpec& spec);
// Submits `spec` and polls it to its end (bounded by `timeout`); the job as GetJob returns it
// then, or an empty job after a failed submit (the test has failed already).
v1::Job RunToEnd(Daemon& daemon, const v1::JobSpec& spec,
                 std::chrono::milliseconds timeout = std::chrono::seconds(60));
// A compile job of one user kernel (`form`, `code`, `entry`) for operation `op`, sm_90a, on the
// cpu device (NVRTC and nvJitLink need no GPU).
v1::JobSpec CompileSpec(const std::string& op, v1::UserKernelForm form, const std::string& code,
                        const std::string& entry);
// Follows WatchJob to the terminal state; returns every snapshot received.
std::vector<v1::Job> WatchToEnd(v1::KbenchService::Stub& stub, const std::string& job_id);
// Polls GetJob until `predicate` holds or `timeout` passes; returns the last job seen.
v1::Job WaitFor(v1::KbenchService::Stub& stub, const std::string& job_id,
                const std::function<bool(const v1::Job&)>& predicate,
                std::chrono::milliseconds timeout = std::chrono::seconds(60));
bool IsTerminal(v1::JobState state);
// Polls GetJob for each of `job_ids` until every one is terminal or `timeout` passes; returns
// those that are not, as last seen.
std::vector<v1::Job> WaitUntilTerminal(v1::KbenchService::Stub& stub,
                                       const std::vector<std::string>& job_ids,
                                       std::chrono::milliseconds timeout);

// An artifact's bytes and the info its stream announced, read with GetArtifact; the stream's
// status otherwise.
struct ArtifactRead {
  std::string bytes;
  v1::ArtifactInfo info;
};
absl::StatusOr<ArtifactRead> ReadArtifact(v1::KbenchService::Stub& stub, const std::string& job_id,
                                          const std::string& name);
// Lowercase hex, as the artifacts' sha256 columns hold it.
std::string Sha256Hex(const std::string& bytes);

// A client context with a 60 s deadline that presents `token` as its bearer (none when empty).
std::unique_ptr<grpc::ClientContext> ContextFor(const std::string& token);

// kbctl run to its exit against a daemon: its exit code, stdout and stderr.
struct KbctlRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs `KBCTL_PATH --server ADDRESS ARGS` (ARGS as a shell would split them), its stderr kept
// in a file under `scratch_dir`; bounded to `timeout_seconds` (two minutes by default).
KbctlRun RunKbctl(const std::string& address, const std::string& args,
                  const std::string& scratch_dir, int timeout_seconds = 120);

}  // namespace kbench::testing
