// kbench.v1's sweeps (issue 27: one small service per domain): SubmitSweep validates every
// point before queuing any, then queues one ordinary job per point through the job service
// (fair share and cancellation stay per job); GetSweep, ListSweeps, CancelSweep and DeleteSweep
// see the sweep as a whole; a sweep's report files are served to GetArtifact. The reports
// themselves are written by server/reports/sweep_reporter.h, which reads sweeps through Load.
// Nothing here knows gRPC.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/sweep/axes.h"
#include "kbench/v1/service.pb.h"
#include "server/api/job_service.h"
#include "server/api/submit_validation.h"
#include "server/api/usage_service.h"
#include "server/api/variant_service.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/job_queue.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/sweep_store.h"

namespace kbench::api {

class SweepService {
 public:
  // What it serves from; each must outlive it.
  struct Parts {
    // Null: this kbenchd keeps no sweeps, and every call answers UNIMPLEMENTED.
    store::SweepStore* sweeps = nullptr;
    // Reports' files lie under data_dir.
    std::string data_dir;
    store::ArtifactStore* artifacts = nullptr;
    // The points' job records (their states, without loading whole jobs).
    store::JobStore* job_store = nullptr;
    scheduler::JobQueue* queue = nullptr;
    JobService* jobs = nullptr;
    UsageService* usage = nullptr;
    VariantService* variants = nullptr;
    const auth::Authorizer* authorizer = nullptr;
    // When a sweep is created.
    scheduler::Clock* clock = nullptr;
  };
  struct Bounds {
    SubmitLimits limits;
    int64_t max_points = sweep::kMaxPoints;
  };
  SweepService(const Parts& parts, const Bounds& bounds);

  // The caller decides the owner exactly as for a job (Authorizer::Submit).
  absl::Status Submit(const auth::Identity& caller, const v1::SubmitSweepRequest& request,
                      v1::SubmitSweepResponse* response);
  absl::Status Get(const auth::Identity& caller, const v1::GetSweepRequest& request,
                   v1::GetSweepResponse* response);
  absl::Status List(const auth::Identity& caller, const v1::ListSweepsRequest& request,
                    v1::ListSweepsResponse* response);
  absl::Status Cancel(const auth::Identity& caller, const v1::CancelSweepRequest& request,
                      v1::CancelSweepResponse* response);
  // Removes a sweep that ended with its points' jobs and its report (sweep_deletion.cc).
  absl::Status Delete(const auth::Identity& caller, const v1::DeleteSweepRequest& request,
                      v1::DeleteSweepResponse* response);

  // The sweep as the API shows it, and its points' jobs when `with_jobs`: what the sweep
  // reporter reports. Thread-safe.
  absl::StatusOr<std::pair<v1::Sweep, std::vector<v1::Job>>> Load(const store::SweepRecord& record,
                                                                  bool with_jobs);
  // True for a sweep's id ("s-…") where sweeps are kept: GetArtifact then serves its report.
  bool Owns(const std::string& id) const;
  absl::StatusOr<OpenedArtifact> OpenArtifact(const v1::GetArtifactRequest& request);

 private:
  // OK where sweeps are kept, else UNIMPLEMENTED.
  absl::Status Kept() const;
  // Every point's job spec, validated for `device`; the points' axis values in *points.
  absl::StatusOr<std::vector<v1::JobSpec>> Validate(const v1::SweepSpec& spec,
                                                    const v1::DeviceInfo& device,
                                                    std::vector<sweep::Point>* points);
  absl::Status Queue(const auth::Identity& caller, const std::string& owner,
                     const v1::SubmitSweepRequest& request, v1::SubmitSweepResponse* response);

  store::SweepStore* const sweeps_;
  const std::string data_dir_;
  store::ArtifactStore* const artifacts_;
  store::JobStore* const job_store_;
  scheduler::JobQueue* const queue_;
  JobService* const jobs_;
  UsageService* const usage_;
  VariantService* const variants_;
  const auth::Authorizer* const authorizer_;
  scheduler::Clock* const clock_;
  const Bounds bounds_;
};

}  // namespace kbench::api
