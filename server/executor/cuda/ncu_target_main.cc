// The target process Nsight Compute starts (`kbench-executor --ncu-target SPEC_FILE`). It goes
// through the CUDA backend like any job so that the kernels ncu sees are launched exactly as the
// executor launches them.
#include <sys/prctl.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "server/common/device_id.h"
#include "server/executor/backend.h"
#include "server/executor/profile/ncu_runner.h"
#include "server/executor/profile/ncu_target.h"

namespace kbench::executor {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "kbench-executor --ncu-target: %s\n", message.c_str());
  return 1;
}

}  // namespace

int RunNcuTarget(int argc, char** argv) {
  // ncu is our parent here and has a parent-death signal from the executor (subprocess.cc);
  // this one ends the chain, so a killed executor takes ncu and the target with it, and no
  // orphan keeps the GPU.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::string spec_path;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], profile::kNcuTargetFlag) == 0) spec_path = argv[i + 1];
  }
  if (spec_path.empty()) {
    std::fprintf(stderr, "usage: %s %s SPEC_FILE\n", argv[0], profile::kNcuTargetFlag);
    return 2;
  }
  std::ifstream f(spec_path);
  std::stringstream text;
  text << f.rdbuf();
  internal::v1::RunJob job;
  if (!f || !google::protobuf::TextFormat::ParseFromString(text.str(), &job)) {
    return Fail(absl::StrCat("cannot read a RunJob (text format) from ", spec_path));
  }
  const absl::StatusOr<DeviceId> device = ParseDeviceId(job.spec().device());
  if (!device.ok() || device->kind != DeviceId::Kind::kCuda) {
    return Fail(absl::StrCat("spec.device: \"", job.spec().device(), "\" is not cuda:N"));
  }
  const int ordinal = device->ordinal;
  profile::EnterNcuTargetMode();
  std::unique_ptr<DeviceBackend> backend = MakeCudaBackend(ordinal);
  if (backend == nullptr) return Fail(absl::StrCat("no CUDA backend for cuda:", ordinal));
  absl::StatusOr<v1::DeviceInfo> info = backend->Initialize();
  if (!info.ok()) return Fail(std::string(info.status().message()));
  std::atomic<bool> cancelled{false};
  JobContext context;
  context.job = &job;
  context.cancelled = &cancelled;
  absl::StatusOr<JobRun> run = backend->Run(context);
  if (!run.ok()) return Fail(run.status().ToString());
  return 0;
}

}  // namespace kbench::executor
