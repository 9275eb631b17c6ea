// Submitting a job and following it to its end, shared by bench, compare, profile and watch;
// and the exit status a finished job stands for.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "client/session.h"
#include "client/spec_options.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

bool IsTerminal(v1::JobState state);

// Builds and submits the job the flags describe. With --no-wait prints it (its id, or the job
// as JSON with -o json) and returns nullopt; otherwise waits for its end and returns it.
absl::StatusOr<std::optional<v1::Job>> SubmitAndWait(Session& session, const SpecFlags& flags,
                                                     SubmitCommand command);

// kbctl's default owner of a job: $USER, or none with a token (the server names the owner).
std::string DefaultOwner(const Session& session);

// Submits an already built request (retrying UNAVAILABLE when it has an idempotency key), says
// so on stderr, and waits for the job's end as WaitForJob.
absl::StatusOr<v1::Job> SubmitRequestAndWait(Session& session, const v1::SubmitJobRequest& request);

// Follows the job through WatchJob until it is SUCCEEDED, FAILED or CANCELLED, showing progress
// on stderr (table output only), and returns its final state.
absl::StatusOr<v1::Job> WaitForJob(Session& session, const v1::Job& job);

// OK for a job that succeeded with every checked variant correct, or that has not finished;
// otherwise an error that exits with ExitCode::kFailed and says why.
absl::Status JobOutcome(const v1::Job& job);

// Prints the job (one JSON document with -o json, else described in full) and returns
// JobOutcome(job).
absl::Status PrintJobReport(Session& session, const v1::Job& job);

}  // namespace kbench::client
