// kbench.v1 registered user variants (see variant_service.h).
#include "server/api/variant_service.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "server/api/registered_variants.h"
#include "server/api/request_limits.h"
#include "server/api/user_kernel_validation.h"
#include "server/common/logging.h"

namespace kbench::api {
namespace {

absl::StatusOr<const kernels::Operation*> OperationNamed(const std::string& name) {
  const kernels::Operation* op = kernels::FindOperation(name);
  if (op == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("operation: ", QuotePrefix(name), " is not in the catalogue (kbctl kernels)"));
  }
  return op;
}

absl::Status NoVariant(const std::string& operation, const std::string& name) {
  return absl::NotFoundError(absl::StrCat("no variant ", QuotePrefix(name), " is registered for ",
                                          operation, " (kbctl variants list ", operation, ")"));
}

}  // namespace

absl::Status VariantService::Kept() const {
  if (variants_ != nullptr) return absl::OkStatus();
  return absl::UnimplementedError("this kbenchd keeps no registered variants");
}

absl::Status VariantService::Resolve(v1::JobSpec* spec, ResolvedVariants* cache) {
  if (variants_ == nullptr) return absl::OkStatus();  // left for validation to refuse
  return ResolveRegisteredVariants(*variants_, spec, cache);
}

absl::Status VariantService::Add(const auth::Identity& caller, const v1::AddVariantRequest& request,
                                 v1::AddVariantResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  KBENCH_ASSIGN_OR_RETURN(const kernels::Operation* op, OperationNamed(request.operation()));
  v1::UserKernel kernel = request.kernel();
  kernel.DiscardUnknownFields();
  KBENCH_RETURN_IF_ERROR(ValidateRegisteredKernel(*op, &kernel));
  std::lock_guard lock(mu_);  // one node: the count and the insert agree
  KBENCH_ASSIGN_OR_RETURN(const int64_t owned, variants_->CountOwnedBy(caller.name));
  if (owned >= max_per_owner_) {
    const absl::Status full = absl::ResourceExhaustedError(absl::StrCat(
        "'", caller.name, "' has registered ", owned, " variants, the limit per owner (",
        max_per_owner_, ", --max-variants-per-owner); remove one (kbctl variants rm)"));
    auth::Authorizer::AuditOutcome(caller, "AddVariant", kernel.name(), full);
    return full;
  }
  const store::VariantRecord record =
      RecordOf(op->name, kernel, caller.name, absl::ToUnixNanos(clock_->Now()));
  KBENCH_RETURN_IF_ERROR(usage_->CheckStoredBytesQuota(caller, "AddVariant", caller.name,
                                                       static_cast<int64_t>(record.kernel.size())));
  KBENCH_RETURN_IF_ERROR(variants_->Add(record));
  auth::Authorizer::AuditOutcome(caller, "AddVariant", absl::StrCat(op->name, "/", kernel.name()),
                                 absl::OkStatus());
  KBENCH_ASSIGN_OR_RETURN(*response->mutable_variant(), VariantOf(record, VariantDetail::kSummary));
  return absl::OkStatus();
}

absl::Status VariantService::Get(const auth::Identity& caller, const v1::GetVariantRequest& request,
                                 v1::GetVariantResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  KBENCH_ASSIGN_OR_RETURN(const kernels::Operation* op, OperationNamed(request.operation()));
  KBENCH_ASSIGN_OR_RETURN(std::optional<store::VariantRecord> record,
                          variants_->Get(op->name, request.name()));
  if (!record) return NoVariant(op->name, request.name());
  if (request.include_code()) {
    const absl::Status decision =
        auth::Authorizer::DecideOwnVariant(caller, "read the code of", record->name, record->owner);
    if (!decision.ok())
      auth::Authorizer::AuditOutcome(caller, "GetVariant", record->name, decision);
    KBENCH_RETURN_IF_ERROR(decision);
  }
  KBENCH_ASSIGN_OR_RETURN(
      *response->mutable_variant(),
      VariantOf(*record, request.include_code() ? VariantDetail::kCode : VariantDetail::kLaunch));
  return absl::OkStatus();
}

absl::Status VariantService::List(const auth::Identity& /*caller*/,
                                  const v1::ListVariantsRequest& request,
                                  v1::ListVariantsResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  std::string operation;
  if (!request.operation().empty()) {
    KBENCH_ASSIGN_OR_RETURN(const kernels::Operation* op, OperationNamed(request.operation()));
    operation = op->name;
  }
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::VariantRecord> records, variants_->List(operation));
  for (const store::VariantRecord& r : records) {
    KBENCH_ASSIGN_OR_RETURN(*response->add_variants(), VariantOf(r, VariantDetail::kSummary));
  }
  return absl::OkStatus();
}

absl::Status VariantService::Delete(const auth::Identity& caller,
                                    const v1::DeleteVariantRequest& request,
                                    v1::DeleteVariantResponse* /*response*/) {
  KBENCH_RETURN_IF_ERROR(Kept());
  KBENCH_ASSIGN_OR_RETURN(const kernels::Operation* op, OperationNamed(request.operation()));
  std::lock_guard lock(mu_);
  KBENCH_ASSIGN_OR_RETURN(std::optional<store::VariantRecord> record,
                          variants_->Get(op->name, request.name()));
  if (!record) return NoVariant(op->name, request.name());
  const absl::Status decision =
      auth::Authorizer::DecideOwnVariant(caller, "remove", record->name, record->owner);
  auth::Authorizer::AuditOutcome(caller, "DeleteVariant", absl::StrCat(op->name, "/", record->name),
                                 decision);
  KBENCH_RETURN_IF_ERROR(decision);
  KBENCH_ASSIGN_OR_RETURN(const bool removed, variants_->Remove(op->name, record->name));
  if (!removed) return NoVariant(op->name, request.name());
  return absl::OkStatus();
}

}  // namespace kbench::api
