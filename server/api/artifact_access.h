// Who may see what a job's user code produced (issue 24, item 5). GetJob already hides a user
// kernel's code; the PTX, cubin and SASS compiled from it, the compile log, sanitizer and
// profiler reports and traces show it as well, and a compile error quotes its lines. Those stay
// with whoever owns all the code the job ran (JobSpec.code_owners) and with admins.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kbench/v1/types.pb.h"
#include "server/auth/authenticator.h"

namespace kbench::api {

// The job runs user code: kernels of its own or registered variants.
bool CarriesUserCode(const v1::JobSpec& spec);

// Whether artifact `name` of a job with `spec` is derived from user code. Of such a job only the
// artifacts known to hold timings alone (samples.csv) are for everyone: an allow-list, so a new
// artifact kind is private until someone decides otherwise.
bool IsOwnerOnlyArtifact(const v1::JobSpec& spec, absl::string_view name);

// `caller` is an admin or owns all the code the job runs (its owner, for a job stored before
// code_owners existed).
bool MayReadCode(const auth::Identity& caller, const v1::JobSpec& spec);

// PERMISSION_DENIED naming the artifact and whose code it shows when `caller` may not read it.
absl::Status DecideArtifactRead(const auth::Identity& caller, const v1::JobSpec& spec,
                                const std::string& job_id, const std::string& name);

// Sets ArtifactInfo.owner_only on each of `job`'s artifacts.
void MarkOwnerOnlyArtifacts(v1::Job* job);

// `job` with its user kernels' code (GetJob's include_code) when `caller` may read that code;
// PERMISSION_DENIED naming whose code it is otherwise.
absl::StatusOr<v1::Job> WithCodeFor(const auth::Identity& caller, v1::Job job);

// `job` (with its code) when its reply fits in `max_reply_bytes`, the transport's bound on a
// reply (kernels of up to 32 MiB do not); RESOURCE_EXHAUSTED naming both sizes and the way
// round (kbctl repro/bundle --code FILE) otherwise, rather than the transport's bare refusal.
absl::StatusOr<v1::Job> WithinReplyBound(v1::Job job, int64_t max_reply_bytes);

// `job` as `viewer` may see it: the error of a job running someone else's code is replaced by a
// line saying whose it is (a compile error quotes the code; the error code stays).
void RedactForViewer(const auth::Identity& viewer, v1::Job* job);

}  // namespace kbench::api
