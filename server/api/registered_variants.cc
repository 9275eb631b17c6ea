#include "server/api/registered_variants.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/user_kernel_form_name.h"
#include "common/user_variant_name.h"
#include "google/protobuf/util/time_util.h"
#include "kernels/catalogue.h"
#include "server/api/request_limits.h"
#include "server/auth/token.h"

namespace kbench::api {

store::VariantRecord RecordOf(const std::string& operation, const v1::UserKernel& kernel,
                              const std::string& owner, int64_t now_ns) {
  store::VariantRecord r;
  r.operation = operation;
  r.name = kernel.name();
  r.owner = owner;
  r.form = UserKernelFormName(kernel.form());
  r.sha256 = auth::Sha256Hex(kernel.code());
  r.code_bytes = static_cast<int64_t>(kernel.code().size());
  kernel.SerializeToString(&r.kernel);
  r.create_time_ns = now_ns;
  return r;
}

absl::StatusOr<v1::RegisteredVariant> VariantOf(const store::VariantRecord& record,
                                                VariantDetail detail) {
  v1::RegisteredVariant v;
  v.set_operation(record.operation);
  v.set_name(record.name);
  v.set_owner(record.owner);
  v.set_form(UserKernelFormNamed(record.form));
  v.set_sha256(record.sha256);
  v.set_code_bytes(record.code_bytes);
  *v.mutable_create_time() =
      google::protobuf::util::TimeUtil::NanosecondsToTimestamp(record.create_time_ns);
  if (detail == VariantDetail::kSummary || record.kernel.empty()) return v;
  if (!v.mutable_kernel()->ParseFromString(record.kernel)) {
    return absl::DataLossError(absl::StrCat("variant ", record.name, " of ", record.operation,
                                            ": its stored kernel does not parse"));
  }
  if (detail == VariantDetail::kLaunch) v.mutable_kernel()->clear_code();
  return v;
}

void AddCodeOwner(const std::string& owner, v1::JobSpec* spec) {
  const auto& owners = spec->code_owners();
  if (std::find(owners.begin(), owners.end(), owner) == owners.end()) spec->add_code_owners(owner);
}

absl::Status ResolveRegisteredVariants(store::VariantStore& variants, v1::JobSpec* spec,
                                       ResolvedVariants* cache) {
  std::set<std::string> provided;
  // An unnamed user kernel is the job's "@user" (named so when it is validated).
  for (const v1::UserKernel& uk : spec->user_kernels()) {
    provided.insert(uk.name().empty() ? kernels::kDefaultUserVariantName : uk.name());
  }
  // Kernels the spec brings are its owner's code, unless an admin's spec (a confirming re-run)
  // already names whose they are.
  if (spec->code_owners().empty() && spec->user_kernels_size() > 0) {
    spec->add_code_owners(spec->owner());
  }
  ResolvedVariants local;
  ResolvedVariants& known = cache != nullptr ? *cache : local;
  for (const std::string& name : spec->variants()) {
    if (!kernels::IsUserVariantName(name) || !provided.insert(name).second) continue;
    // Before the store is asked: a registered name follows the rule, and the NOT_FOUND below
    // echoes the name.
    KBENCH_RETURN_IF_ERROR(CheckUserVariantName("variants", name));
    auto it = known.find(name);
    if (it == known.end()) {
      KBENCH_ASSIGN_OR_RETURN(std::optional<store::VariantRecord> record,
                              variants.Get(spec->kernel(), name));
      if (!record) {
        return absl::NotFoundError(
            absl::StrCat("variants: ", name.substr(0, 64),
                         " is neither a user kernel of the job nor a variant "
                         "registered for ",
                         spec->kernel(), " (kbctl variants list ", spec->kernel(), ")"));
      }
      v1::UserKernel kernel;
      if (!kernel.ParseFromString(record->kernel)) {
        return absl::DataLossError(absl::StrCat("variant ", name, " of ", spec->kernel(),
                                                ": its stored kernel does not parse"));
      }
      kernel.set_name(name);
      it = known.emplace(name, RegisteredKernel{std::move(kernel), record->owner}).first;
    }
    *spec->add_user_kernels() = it->second.kernel;
    AddCodeOwner(it->second.owner, spec);
  }
  if (spec->user_kernels_size() > kMaxUserKernels) {
    return absl::InvalidArgumentError(absl::StrCat("variants: ", spec->user_kernels_size(),
                                                   " user and registered variants; at most ",
                                                   kMaxUserKernels, " in one job"));
  }
  return absl::OkStatus();
}

}  // namespace kbench::api
