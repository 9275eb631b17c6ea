// The CUDA part's entry points in a build without CUDA (KBENCH_CUDA=OFF): no CUDA device is
// discovered, and a request for one says the executor was built without CUDA.
#include <cstdio>

#include "absl/status/status.h"
#include "server/executor/backend.h"

namespace kbench::executor {
namespace {

constexpr char kWithoutCuda[] =
    "this kbench-executor was built without CUDA (KBENCH_CUDA=OFF): only the cpu device runs";

class WithoutCudaBackend : public DeviceBackend {
 public:
  absl::StatusOr<v1::DeviceInfo> Initialize() override {
    return absl::FailedPreconditionError(kWithoutCuda);
  }
  absl::StatusOr<JobRun> Run(const JobContext&) override {
    return absl::FailedPreconditionError(kWithoutCuda);
  }
};

}  // namespace

std::unique_ptr<DeviceBackend> MakeCudaBackend(int, const IdleGateOptions&) {
  return std::make_unique<WithoutCudaBackend>();
}

// No NCCL without CUDA: nothing to configure.
void ConfigureCollectives(const CollectiveOptions&) {}

absl::StatusOr<std::vector<v1::DeviceInfo>> DiscoverCudaDevices() {
  return std::vector<v1::DeviceInfo>{};
}

int RunNcuTarget(int, char**) {
  std::fprintf(stderr, "kbench-executor --ncu-target: %s\n", kWithoutCuda);
  return 1;
}

absl::StatusOr<JobRun> RunCompileJob(const JobContext&) {
  return absl::FailedPreconditionError(
      "kind: compile jobs need the CUDA toolkit's compilers (NVRTC, nvJitLink); this "
      "kbench-executor was built without CUDA (KBENCH_CUDA=OFF)");
}

void ConfigureCompileSandbox(const CompileSandboxOptions&) {}

int RunCompileUserKernelChild(int, char**) {
  std::fprintf(stderr, "kbench-executor --compile-user-kernel: %s\n", kWithoutCuda);
  return 1;
}

}  // namespace kbench::executor
