// What a caller may do with kbench.v1: each call is authenticated here once, before its handler
// runs (server/api/call_identity.h), and the domain services ask the decisions below. Everyone
// known may read (the queue, results and artifacts are the lab's); a job's owner is its
// submitter; only the owner or an admin cancels; only an admin submits on behalf of someone
// else. Denials are PERMISSION_DENIED naming what was refused and why, and are written to the
// audit log with cancels and admin actions. Authentication failures are audited too,
// rate-limited per peer (audit_limiter.h) since anyone can cause them. While kbenchd drains
// (call_gate.h) every call is refused with UNAVAILABLE before anything else: on the Unix socket
// this is the only place that can (its connections bypass early_auth.h).
//
// Why an interceptor rather than a gRPC AuthMetadataProcessor alone: a processor never runs on
// the Unix socket, and it cannot hand the identity to the handler. Thread-safe.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kbench/v1/service.pb.h"
#include "server/auth/audit_limiter.h"
#include "server/auth/authenticator.h"
#include "server/auth/call_gate.h"
#include "server/store/job_store.h"

namespace grpc {
class ServerContextBase;
}

namespace kbench::auth {

class Authorizer {
 public:
  // All three must outlive this object.
  Authorizer(const Authenticator* authenticator, store::JobStore* jobs, const CallGate* gate,
             AuditLimiter::Options failure_audit = {})
      : authenticator_(authenticator), jobs_(jobs), gate_(gate), failure_audit_(failure_audit) {}

  // Who calls: any authenticated caller may read. Refuses every call with UNAVAILABLE while
  // kbenchd drains; an authentication failure is audited, rate-limited per peer. Run once per
  // call, by the call authentication interceptor (server/api/call_identity.h); `method` names
  // the call in the audit log.
  absl::StatusOr<Identity> Authenticate(const grpc::ServerContextBase& context,
                                        absl::string_view method) const;
  // SubmitJob and SubmitSweep: sets the spec's owner to the caller; a user's owner field is
  // ignored, an admin's names whom the job is for (audited). A priority above 0 jumps ahead of
  // every owner's fair-share turn: an admin's is accepted (audited), a user's is
  // PERMISSION_DENIED naming it. A request without a spec is left for validation.
  absl::Status Submit(const Identity& caller, v1::SubmitJobRequest* request) const;
  // CancelJob: the job's owner or an admin (audited). A job that does not exist is NOT_FOUND.
  absl::Status Cancel(const Identity& caller, const std::string& job_id) const;

  // The auth file's limits of `owner`, if it lists them.
  std::optional<Limits> LimitsOf(const std::string& owner) const {
    return authenticator_->LimitsOf(owner);
  }
  // Writes an audit line for a request refused after authorization (a quota, say).
  static void AuditDenied(const Identity& caller, absl::string_view action,
                          absl::string_view target, const absl::Status& why);

  // The decisions without gRPC, for unit tests: `caller` already authenticated.
  static absl::Status DecideSubmit(const Identity& caller, v1::JobSpec* spec);
  static absl::Status DecideCancel(const Identity& caller, const std::string& job_id,
                                   const std::string& owner);
  // Reading a registered variant's code, or removing it (`action`): its owner or an admin.
  static absl::Status DecideOwnVariant(const Identity& caller, absl::string_view action,
                                       const std::string& variant, const std::string& owner);
  // Writes an audit line for an action decided by the caller of this (allowed or denied).
  static void AuditOutcome(const Identity& caller, absl::string_view action,
                           absl::string_view target, const absl::Status& outcome);

 private:
  const Authenticator* authenticator_;
  store::JobStore* jobs_;
  const CallGate* gate_;
  mutable AuditLimiter failure_audit_;
};

}  // namespace kbench::auth
