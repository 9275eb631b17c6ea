// An executor's device backend: what one executor process runs jobs on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kbench/v1/types.pb.h"
#include "server/executor/contention.h"

namespace kbench::executor {

struct JobContext {
  const internal::v1::RunJob* job = nullptr;
  std::function<void(const v1::Progress&)> progress;
  const std::atomic<bool>* cancelled = nullptr;
  // Artifacts the job keeps even when it fails (a memcheck report that explains the failure);
  // the executor returns them with the error. May be null.
  std::vector<internal::v1::ArtifactFile>* kept_on_failure = nullptr;
};

struct JobRun {
  v1::JobResult result;
  std::vector<internal::v1::ArtifactFile> artifacts;
};

// Named apart from kernels::Backend (the catalogue's host/CUDA implementation kind): this is the
// executor's handle on one device.
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // Brings the device up (measuring its copy bandwidth) and says what it is.
  virtual absl::StatusOr<v1::DeviceInfo> Initialize() = 0;
  virtual absl::StatusOr<JobRun> Run(const JobContext& context) = 0;
  // After a failed Run: the process must be restarted before the next job.
  virtual bool NeedsRestart() const { return false; }
};

// The always-present host device.
std::unique_ptr<DeviceBackend> MakeCpuBackend();

// The CUDA part's entry points, defined in server/executor/cuda/ and profile/; in a build without
// CUDA (KBENCH_CUDA=OFF) server/executor/without_cuda.cc defines them to say so.

// CUDA device `ordinal`.
// CUDA device `ordinal`; `idle_gate` is kbenchd's --idle-gate for it (off by default).
std::unique_ptr<DeviceBackend> MakeCudaBackend(int ordinal, const IdleGateOptions& idle_gate = {});
// Every CUDA device visible to this process; empty (not an error) without a driver or GPU.
absl::StatusOr<std::vector<v1::DeviceInfo>> DiscoverCudaDevices();
// Nsight Compute's target mode, `kbench-executor --ncu-target SPEC_FILE` (profile jobs): returns
// the process's exit code.
int RunNcuTarget(int argc, char** argv);
// A compile job (JOB_KIND_COMPILE, issue 10): any device's executor runs it, no GPU needed
// (server/executor/usermodule/); FAILED_PRECONDITION in a build without the CUDA toolkit.
absl::StatusOr<JobRun> RunCompileJob(const JobContext& context);
// The compile child, `kbench-executor --compile-user-kernel REQUEST REPLY`: the exit code.
int RunCompileUserKernelChild(int argc, char** argv);

// The compile children's limits and the host's compile lock (issue 24), from kbench-executor's
// flags: called once by main before any job runs.
struct CompileSandboxOptions {
  uint64_t memory_bytes = uint64_t{4} << 30;
  uint64_t cpu_seconds = 60;
  std::string lock_path;  // empty: no lock
};
void ConfigureCompileSandbox(const CompileSandboxOptions& options);

// Multi-GPU jobs (issue 30), from kbench-executor's flags: called once by main before any job.
struct CollectiveOptions {
  // NVLink multicast (NVLS) for NCCL: off unless the operator passes --allow-nvls. NVLS maps
  // multicast memory across the gang's devices (and fabric resources a shared host's other jobs
  // may need); kbench never calls cuMulticastCreate itself and sets NCCL_NVLS_ENABLE=0 before
  // every communicator it creates.
  bool allow_nvls = false;
};
void ConfigureCollectives(const CollectiveOptions& options);

}  // namespace kbench::executor
