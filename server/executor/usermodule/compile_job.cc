// A compile job: compile in a child, read resources, compute occupancy, write artifacts.
#include "server/executor/usermodule/compile_job.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "server/common/spec_problem.h"
#include "server/executor/profile/occupancy.h"
#include "server/executor/profile/subprocess.h"
#include "server/executor/usermodule/arch_limits.h"
#include "server/executor/usermodule/compile_child.h"
#include "server/executor/usermodule/launch_config.h"

namespace kbench::executor::usermodule {
namespace {

// Disassembling a cubin takes well under a second; a stuck tool is not the job's failure.
constexpr double kDisassembleSeconds = 30;

absl::Status AddArtifact(const JobContext& context, const std::string& name,
                         const std::string& bytes, const std::string& content_type, JobRun* run) {
  const std::string path = context.job->artifact_dir() + "/" + name;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  internal::v1::ArtifactFile* a = &run->artifacts.emplace_back();
  a->set_name(name);
  a->set_path(path);
  a->set_content_type(content_type);
  return absl::OkStatus();
}

// nvdisasm (or cuobjdump) from PATH or the toolkit's bin directory; empty when neither is there.
std::string FindDisassembler(const char* tool) {
  std::vector<std::string> dirs = {"/usr/local/cuda/bin"};
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    for (absl::string_view d : absl::StrSplit(path, ':')) dirs.emplace_back(d);
  }
  for (const std::string& d : dirs) {
    const std::string candidate = absl::StrCat(d, "/", tool);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Writes sass.txt beside the cubin when a disassembler is installed; reports whether it did.
bool Disassemble(const JobContext& context, const std::string& cubin_path, JobRun* run) {
  std::vector<std::string> argv;
  if (std::string nvdisasm = FindDisassembler("nvdisasm"); !nvdisasm.empty()) {
    argv = {nvdisasm, "-c", "-g", cubin_path};
  } else if (std::string cuobjdump = FindDisassembler("cuobjdump"); !cuobjdump.empty()) {
    argv = {cuobjdump, "-sass", cubin_path};
  } else {
    return false;
  }
  const std::string path = context.job->artifact_dir() + "/sass.txt";
  absl::StatusOr<profile::ProcessResult> r =
      profile::RunProcess(argv, path, path, kDisassembleSeconds, context.cancelled);
  if (!r.ok() || !r->ok()) return false;
  internal::v1::ArtifactFile* a = &run->artifacts.emplace_back();
  a->set_name("sass.txt");
  a->set_path(path);
  a->set_content_type("text/plain");
  return true;
}

// The entry's occupancy for the job's launch configuration, when one was given.
void AddOccupancy(const v1::JobSpec& spec, const kernels::SmArch& arch, v1::CompileResult* r) {
  const v1::UserKernel& uk = spec.user_kernels(0);
  if (r->kernels().empty() ||
      (uk.launch().block().empty() && uk.form() != v1::USER_KERNEL_FORM_TRITON)) {
    return;
  }
  absl::StatusOr<kernels::Problem> problem = ProblemFromSpec(spec, uk.name());
  if (!problem.ok() || !kernels::ValidateProblem(&*problem).ok()) return;
  absl::StatusOr<EvaluatedLaunch> launch = EvaluateLaunch(uk, *problem);
  if (!launch.ok()) return;
  v1::KernelResources* k = r->mutable_kernels(0);
  k->set_block_threads(static_cast<int32_t>(launch->threads_per_block()));
  k->set_dynamic_shared_bytes(launch->dynamic_smem_bytes);
  const std::optional<profile::DeviceLimits> limits = LimitsForArch(arch);
  if (!limits) {
    k->set_occupancy_limiter(absl::StrCat("unknown (no limits table for ", arch.ToString(), ")"));
    return;
  }
  profile::LaunchResources res;
  res.threads_per_block = k->block_threads();
  res.registers_per_thread = k->registers_per_thread();
  res.static_shared_bytes = k->static_shared_bytes();
  res.dynamic_shared_bytes = k->dynamic_shared_bytes();
  const profile::Occupancy occ = profile::TheoreticalOccupancy(*limits, res);
  k->set_theoretical_occupancy(occ.fraction);
  k->set_occupancy_limiter(occ.limiter);
}

}  // namespace

absl::StatusOr<JobRun> RunCompileJob(const JobContext& context) {
  const v1::JobSpec& spec = context.job->spec();
  if (spec.user_kernels_size() != 1) {
    return absl::InvalidArgumentError("user_kernels: a compile job takes exactly one");
  }
  const v1::UserKernel& uk = spec.user_kernels(0);
  KBENCH_ASSIGN_OR_RETURN(const kernels::SmArch arch, kernels::ParseSmArch(uk.arch()));
  KBENCH_ASSIGN_OR_RETURN(internal::v1::CompileReply reply,
                          CompileInChild(uk, arch, context.job->artifact_dir(),
                                         kernels::kMaxCompileSeconds, context.cancelled));
  if (reply.code() != 0) {
    return absl::Status(static_cast<absl::StatusCode>(reply.code()), reply.message());
  }
  JobRun run;
  v1::CompileResult* report = run.result.mutable_compile();
  *report = reply.report();
  AddOccupancy(spec, arch, report);
  if (!report->log().empty()) {
    KBENCH_RETURN_IF_ERROR(AddArtifact(context, "compile.log", report->log(), "text/plain", &run));
  }
  if (!reply.ptx().empty()) {
    KBENCH_RETURN_IF_ERROR(AddArtifact(context, "module.ptx", reply.ptx(), "text/plain", &run));
  }
  KBENCH_RETURN_IF_ERROR(
      AddArtifact(context, "module.cubin", reply.cubin(), "application/octet-stream", &run));
  report->set_sass_available(Disassemble(context, run.artifacts.back().path(), &run));
  return run;
}

}  // namespace kbench::executor::usermodule
