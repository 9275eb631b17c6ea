// CUDA devices: discovery, and the per-device DeviceBackend that runs benchmark and profile jobs on
// a CudaRunner and restarts its executor after a sticky CUDA error.
#include "server/executor/cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <map>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/executor/backend.h"
#include "server/executor/benchmark_job.h"
#include "server/executor/cuda/collective_job.h"
#include "server/executor/cuda/cuda_runner.h"
#include "server/executor/cuda/device_info.h"
#include "server/executor/profile/profile_job.h"
#include "server/executor/profile/sanitize_job.h"

namespace kbench::executor {
namespace {

class CudaBackend : public DeviceBackend {
 public:
  CudaBackend(int ordinal, cuda::CudaRunnerOptions options)
      : runner_(ordinal, std::move(options)) {}

  absl::StatusOr<v1::DeviceInfo> Initialize() override {
    KBENCH_RETURN_IF_ERROR(runner_.Initialize());
    return runner_.info();
  }

  absl::StatusOr<JobRun> Run(const JobContext& context) override {
    if (const cudaError_t err = cudaSetDevice(runner_.ordinal()); err != cudaSuccess) {
      return runner_.CheckHealth(
          kernels::cuda::CudaStatus(err, "cudaSetDevice", __FILE__, __LINE__));
    }
    absl::StatusOr<JobRun> run;
    runner_.BeginJob(context.job->spec().owner());
    absl::Cleanup end_job = [this] { runner_.EndJob(); };
    switch (context.job->spec().kind()) {
      case v1::JOB_KIND_UNSPECIFIED:
      case v1::JOB_KIND_BENCHMARK:
        // A collective, or any job holding several devices, runs on the whole gang (issue 30).
        run = cuda::IsCollectiveJob(context.job->spec()) ? cuda::RunCollectiveJob(runner_, context)
                                                         : RunBenchmark(context);
        break;
      case v1::JOB_KIND_PROFILE:
        run = RunProfileJob(runner_, context);
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("kind: unknown job kind ", context.job->spec().kind()));
    }
    if (!run.ok()) return runner_.CheckHealth(run.status());
    return run;
  }

  bool NeedsRestart() const override { return runner_.NeedsRestart(); }

 private:
  // A benchmark, after its `sanitize` pass when it asks for one (issue 10, item 6).
  absl::StatusOr<JobRun> RunBenchmark(const JobContext& context) {
    if (!context.job->spec().sanitize()) return RunBenchmarkJob(runner_, context);
    std::vector<internal::v1::ArtifactFile> reports;
    absl::StatusOr<std::map<std::string, v1::SanitizerRecord>> records =
        profile::SanitizeUserVariants(context, runner_.ordinal(), &reports);
    if (!records.ok()) {
      if (context.kept_on_failure != nullptr) {
        for (auto& r : reports) context.kept_on_failure->push_back(std::move(r));
      }
      return records.status();
    }
    KBENCH_ASSIGN_OR_RETURN(JobRun run, RunBenchmarkJob(runner_, context));
    profile::AttachSanitizerRecords(*records, &run.result);
    for (auto& r : reports) run.artifacts.push_back(std::move(r));
    return run;
  }

  cuda::CudaRunner runner_;
};

}  // namespace

absl::StatusOr<std::vector<v1::DeviceInfo>> DiscoverCudaDevices() {
  std::vector<v1::DeviceInfo> devices;
  int count = 0;
  // No driver or no GPU: no CUDA devices, not an error.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return devices;
  }
  for (int i = 0; i < count; ++i) {
    KBENCH_ASSIGN_OR_RETURN(v1::DeviceInfo info, cuda::ReadDeviceInfo(i));
    devices.push_back(std::move(info));
  }
  return devices;
}

std::unique_ptr<DeviceBackend> MakeCudaBackend(int ordinal, const IdleGateOptions& idle_gate) {
  cuda::CudaRunnerOptions options;
  options.idle_gate = idle_gate;
  return std::make_unique<CudaBackend>(ordinal, std::move(options));
}

std::unique_ptr<DeviceBackend> cuda::MakeCudaBackend(int ordinal, CudaRunnerOptions options) {
  return std::make_unique<CudaBackend>(ordinal, std::move(options));
}

}  // namespace kbench::executor
