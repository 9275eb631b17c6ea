// An in-process kbench.v1 server for kbctl's tests: a real gRPC server on a loopback port whose
// answers the test scripts (job states streamed by WatchJob, pages, artifacts), and
// which records the requests it received. It checks nothing about benchmarks themselves.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "grpcpp/server.h"
#include "kbench/v1/service.grpc.pb.h"

namespace kbench::client::testing {

// A VariantResult with plausible statistics (median 1 ms), passed correctness.
v1::VariantResult MakeVariantResult(const std::string& variant, double median_seconds);

class FakeKbenchServer final : public v1::KbenchService::Service {
 public:
  // The states WatchJob streams for a job after it was submitted. GetJob returns the last state
  // a WatchJob streamed (QUEUED before any watch), as if the job ran while someone watched. The
  // default runs: RUNNING (measure, 2 progress updates) then SUCCEEDED with one VariantResult per
  // variant.
  using Script = std::function<std::vector<v1::Job>(const v1::Job& submitted)>;

  FakeKbenchServer();
  ~FakeKbenchServer() override;

  // "127.0.0.1:PORT".
  const std::string& address() const { return address_; }
  void SetServing(bool serving);

  v1::ListKernelsResponse& kernels() { return kernels_; }
  v1::ListDevicesResponse& devices() { return devices_; }
  // What ListHistory answers to every request.
  v1::ListHistoryResponse& history() { return history_; }
  void set_script(Script script);
  // Adds a finished job that GetJob, WatchJob, ListJobs and CancelJob know.
  void AddJob(const v1::Job& job);
  // The artifact's bytes; `announced_sha256` overrides the true hash (to test a mismatch).
  void AddArtifact(const std::string& job_id, const std::string& name, const std::string& bytes,
                   const std::string& announced_sha256 = "");
  // SubmitJob answers this error instead of accepting the job, `times` times (-1: always).
  void FailSubmitWith(grpc::Status status, int times = -1);

  std::vector<v1::SubmitJobRequest> submits() const;
  std::vector<v1::ListJobsRequest> list_requests() const;
  int rpc_count() const;

  grpc::Status ListKernels(grpc::ServerContext*, const v1::ListKernelsRequest*,
                           v1::ListKernelsResponse*) override;
  grpc::Status ListDevices(grpc::ServerContext*, const v1::ListDevicesRequest*,
                           v1::ListDevicesResponse*) override;
  grpc::Status SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest*,
                         v1::SubmitJobResponse*) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest*, v1::GetJobResponse*) override;
  grpc::Status WatchJob(grpc::ServerContext*, const v1::WatchJobRequest*,
                        grpc::ServerWriter<v1::WatchJobResponse>*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest*,
                         v1::CancelJobResponse*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*,
                        v1::ListJobsResponse*) override;
  grpc::Status GetArtifact(grpc::ServerContext*, const v1::GetArtifactRequest*,
                           grpc::ServerWriter<v1::GetArtifactResponse>*) override;
  grpc::Status ListHistory(grpc::ServerContext*, const v1::ListHistoryRequest*,
                           v1::ListHistoryResponse*) override;

 private:
  struct Artifact {
    std::string bytes;
    v1::ArtifactInfo info;
  };

  void Count() ABSL_LOCKS_EXCLUDED(mu_);

  mutable absl::Mutex mu_;
  v1::ListKernelsResponse kernels_;
  v1::ListDevicesResponse devices_;
  v1::ListHistoryResponse history_;
  Script script_ ABSL_GUARDED_BY(mu_);
  // Newest last; ListJobs returns them newest first.
  std::vector<std::string> order_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<v1::Job>> states_ ABSL_GUARDED_BY(mu_);
  // Index into states_[id] of the job's current state.
  std::map<std::string, size_t> current_ ABSL_GUARDED_BY(mu_);
  v1::Job& Current(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return states_[id][current_[id]];
  }
  std::map<std::string, std::string> idempotency_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, Artifact> artifacts_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::SubmitJobRequest> submits_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::ListJobsRequest> list_requests_ ABSL_GUARDED_BY(mu_);
  grpc::Status submit_error_ ABSL_GUARDED_BY(mu_);
  int submit_errors_left_ ABSL_GUARDED_BY(mu_) = -1;  // -1: every submit
  int rpcs_ ABSL_GUARDED_BY(mu_) = 0;
  int next_id_ ABSL_GUARDED_BY(mu_) = 1;

  std::string address_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace kbench::client::testing
