// Authorization decisions and the audit log (see authorizer.h).
#include "server/auth/authorizer.h"

#include <grpcpp/server_context.h>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/common/logging.h"

namespace kbench::auth {
namespace {

using logging::Field;

// One line per decision worth keeping: who, what, on what, and the outcome.
void Audit(const Identity& caller, absl::string_view action, absl::string_view target,
           const absl::Status& outcome) {
  logging::Log(
      outcome.ok() ? logging::Level::kInfo : logging::Level::kWarn, "audit",
      {Field("user", caller.name), Field("role", RoleName(caller.role)), Field("action", action),
       Field("target", target), Field("outcome", outcome.ok() ? "allowed" : "denied"),
       Field("reason", outcome.ok() ? "" : std::string(outcome.message()))});
}

// An authentication failure, when the limiter lets it through: `suppressed` earlier failures of
// the same peer went unwritten.
void AuditUnauthenticated(absl::string_view method, const std::string& peer,
                          const absl::Status& why, int64_t suppressed) {
  logging::Log(
      logging::Level::kWarn, "audit",
      {Field("user", "-"), Field("role", "-"), Field("action", method), Field("target", peer),
       Field("outcome", "denied"), Field("reason", std::string(why.message())),
       Field("suppressed_since_last", absl::StrCat(suppressed))});
}

absl::StatusOr<std::string> OwnerOf(store::JobStore& jobs, const std::string& job_id) {
  KBENCH_ASSIGN_OR_RETURN(store::JobRecord record, jobs.Get(job_id));
  return record.owner;
}

}  // namespace

absl::StatusOr<Identity> Authorizer::Authenticate(const grpc::ServerContextBase& context,
                                                  absl::string_view method) const {
  KBENCH_RETURN_IF_ERROR(gate_->Admit(CallKind::kKbench));
  absl::StatusOr<Identity> caller = authenticator_->Authenticate(context);
  if (caller.ok()) return caller;
  const std::string peer = context.peer();
  if (std::optional<int64_t> suppressed = failure_audit_.Admit(peer); suppressed) {
    AuditUnauthenticated(method, peer, caller.status(), *suppressed);
  }
  return caller;
}

void Authorizer::AuditDenied(const Identity& caller, absl::string_view action,
                             absl::string_view target, const absl::Status& why) {
  Audit(caller, action, target, why);
}

absl::Status Authorizer::DecideSubmit(const Identity& caller, v1::JobSpec* spec) {
  if (spec->priority() > 0 && !caller.admin()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "spec.priority: ", spec->priority(), " is refused for '", caller.name,
        "': a priority above 0 goes ahead of every owner's fair-share turn, which only an "
        "admin may ask for; use 0 or below to order your own jobs"));
  }
  // A user's owner field is ignored rather than refused: older kbctl sends $USER there.
  if (!caller.admin() || spec->owner().empty()) spec->set_owner(caller.name);
  // Whose code a job runs is kbenchd's to say (registered_variants.h); only an admin's re-run
  // of a job carries the list over.
  if (!caller.admin()) spec->clear_code_owners();
  return ValidateUserName(spec->owner()).ok()
             ? absl::OkStatus()
             : absl::InvalidArgumentError(
                   absl::StrCat("spec.owner: '", spec->owner().substr(0, 64), "'",
                                spec->owner().size() > 64 ? "..." : "",
                                " is not a user name ([A-Za-z0-9._@-], 1-64 characters)"));
}

absl::Status Authorizer::Submit(const Identity& caller, v1::SubmitJobRequest* request) const {
  if (!request->has_spec()) return absl::OkStatus();
  v1::JobSpec* spec = request->mutable_spec();
  const int32_t priority = spec->priority();
  const absl::Status decision = DecideSubmit(caller, spec);
  const bool priority_refused = decision.code() == absl::StatusCode::kPermissionDenied;
  if (priority > 0 && (decision.ok() || priority_refused)) {
    Audit(caller, "SubmitJob with priority", absl::StrCat(priority), decision);
  }
  if (!priority_refused && (spec->owner() != caller.name || !decision.ok())) {
    Audit(caller, "SubmitJob on behalf", spec->owner(), decision);
  }
  return decision;
}

absl::Status Authorizer::DecideCancel(const Identity& caller, const std::string& job_id,
                                      const std::string& owner) {
  if (caller.admin() || owner == caller.name) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("cancel job ", job_id, ": refused, it belongs to '", owner, "' and you are '",
                   caller.name, "'; only its owner or an admin cancels it"));
}

absl::Status Authorizer::DecideOwnVariant(const Identity& caller, absl::string_view action,
                                          const std::string& variant, const std::string& owner) {
  if (caller.admin() || owner == caller.name) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat(action, " ", variant, ": refused, it belongs to '", owner, "' and you are '",
                   caller.name, "'; only its owner or an admin may"));
}

void Authorizer::AuditOutcome(const Identity& caller, absl::string_view action,
                              absl::string_view target, const absl::Status& outcome) {
  Audit(caller, action, target, outcome);
}

absl::Status Authorizer::Cancel(const Identity& caller, const std::string& job_id) const {
  if (job_id.empty()) return absl::InvalidArgumentError("job_id: must be given");
  KBENCH_ASSIGN_OR_RETURN(std::string owner, OwnerOf(*jobs_, job_id));
  const absl::Status decision = DecideCancel(caller, job_id, owner);
  Audit(caller, "CancelJob", job_id, decision);
  return decision;
}

}  // namespace kbench::auth
