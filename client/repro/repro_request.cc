// Building a reproduction's SubmitJob request from a stored job.
#include "client/repro/repro_request.h"

#include "absl/strings/str_cat.h"
#include "client/errors.h"

namespace kbench::client {

std::string ReproDevice(const v1::Job& job, const std::string& device) {
  if (!device.empty()) return device;
  return job.device().empty() ? job.spec().device() : job.device();
}

absl::StatusOr<v1::SubmitJobRequest> ReproRequest(const ReproSource& source,
                                                  const ReproOptions& options) {
  v1::SubmitJobRequest request;
  v1::JobSpec* spec = request.mutable_spec();
  *spec = source.job.spec();
  spec->set_device(ReproDevice(source.job, options.device));
  spec->set_owner(options.owner);
  // Set by kbenchd only: who owns the code and which ranked job a run confirms.
  spec->clear_code_owners();
  spec->clear_confirms_job();
  if (options.same_seed) {
    if (spec->ranked()) {
      return UsageError("--same-seed: a ranked job takes no seed of the spec's (kbenchd draws it)");
    }
    spec->set_seed(source.job.result().environment().seed());
  }
  // Registered variants without code here are resolved again by kbenchd from their names.
  google::protobuf::RepeatedPtrField<v1::UserKernel> kernels;
  for (const v1::UserKernel& uk : source.job.spec().user_kernels()) {
    auto code = source.code.find(uk.name());
    if (code == source.code.end()) continue;
    v1::UserKernel* kept = kernels.Add();
    *kept = uk;
    kept->set_code(code->second);
    kept->clear_code_sha256();
  }
  spec->mutable_user_kernels()->Swap(&kernels);
  return request;
}

absl::Status CheckSameModel(const v1::Job& job, const v1::DeviceInfo& target) {
  const std::string& recorded = job.result().environment().device_name();
  if (recorded.empty() || recorded == target.name()) return absl::OkStatus();
  return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                          absl::StrCat("job ", job.id(), " ran on a ", recorded, "; ", target.id(),
                                       " is a ", target.name(),
                                       ": a reproduction runs on the same model (--device names "
                                       "another device; --any-model runs it anyway)"));
}

}  // namespace kbench::client
