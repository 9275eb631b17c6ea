// Submit, watch, and the outcome of a job.
#include "client/job_wait.h"

#include "absl/strings/str_cat.h"
#include "client/args.h"
#include "client/errors.h"
#include "client/format/job_view.h"
#include "client/format/progress.h"
#include "client/submit_retry.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// A WatchJob stream that ends without a terminal state (the daemon restarting, a proxy timing
// out) is reopened this many times before kbctl gives up.
constexpr int kWatchAttempts = 3;

}  // namespace

bool IsTerminal(v1::JobState state) {
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

std::string DefaultOwner(const Session& session) {
  // With credentials the server names the owner; $USER would only mislabel an admin's job.
  return session.options().security.token.empty() ? session.GetEnv("USER").value_or("") : "";
}

namespace {

// Submits, retrying a refusal while kbenchd restarts when the request has an idempotency key.
absl::StatusOr<v1::Job> SubmitRequest(Session& session, const v1::SubmitJobRequest& request) {
  KBENCH_ASSIGN_OR_RETURN(
      v1::SubmitJobResponse response,
      SubmitRetryingUnavailable<v1::SubmitJobResponse>(session, request.idempotency_key(), [&] {
        return session.connection().SubmitJob(request);
      }));
  if (response.deduplicated()) {
    session.Note(absl::StrCat("kbctl: idempotency key \"", request.idempotency_key(),
                              "\" matched job ", response.job().id(),
                              " submitted earlier; following it"));
  }
  return response.job();
}

}  // namespace

absl::StatusOr<v1::Job> SubmitRequestAndWait(Session& session,
                                             const v1::SubmitJobRequest& request) {
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, SubmitRequest(session, request));
  session.Note(absl::StrCat("kbctl: submitted job ", job.id(),
                            "; Ctrl-C stops watching, `kbctl cancel ", job.id(),
                            "` stops the job"));
  return WaitForJob(session, job);
}

absl::StatusOr<std::optional<v1::Job>> SubmitAndWait(Session& session, const SpecFlags& flags,
                                                     SubmitCommand command) {
  KBENCH_ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                          BuildSubmitRequest(flags, command, DefaultOwner(session)));
  KBENCH_RETURN_IF_ERROR(ResolveDefaults(session, &request));
  if (!flags.no_wait) {
    KBENCH_ASSIGN_OR_RETURN(v1::Job done, SubmitRequestAndWait(session, request));
    return std::optional<v1::Job>(std::move(done));
  }
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, SubmitRequest(session, request));
  if (session.json()) {
    KBENCH_RETURN_IF_ERROR(session.PrintJson(job));
  } else {
    session.out() << job.id() << "\n";
  }
  return std::nullopt;
}

absl::StatusOr<v1::Job> WaitForJob(Session& session, const v1::Job& job) {
  v1::Job last = job;
  if (IsTerminal(last.state())) return last;
  ProgressLine progress(&session.err(), session.io().err_is_tty, session.io().err_columns);
  for (int attempt = 0; attempt < kWatchAttempts; ++attempt) {
    const absl::Status s = session.connection().WatchJob(last.id(), [&](const v1::Job& update) {
      last = update;
      if (!session.json()) progress.Update(update);
    });
    if (!s.ok()) {
      progress.Finish();
      return absl::Status(s.code(),
                          absl::StrCat(s.message(), "; job ", last.id(), " goes on: `kbctl watch ",
                                       last.id(), "` follows it again"));
    }
    if (IsTerminal(last.state())) break;
    KBENCH_ASSIGN_OR_RETURN(v1::Job now, session.connection().GetJob(last.id()));
    last = std::move(now);
    if (IsTerminal(last.state())) break;
  }
  progress.Finish();
  if (!IsTerminal(last.state())) {
    return absl::UnavailableError(absl::StrCat(
        "WatchJob ended ", kWatchAttempts, " times before job ", last.id(), " finished (still ",
        StateName(last.state()), "); `kbctl watch ", last.id(), "` follows it again"));
  }
  return last;
}

absl::Status JobOutcome(const v1::Job& job) {
  switch (job.state()) {
    case v1::JOB_STATE_FAILED:
      return CheckFailedError(JobStatusCode(job),
                              absl::StrCat("job ", job.id(), " failed: ", job.error()));
    case v1::JOB_STATE_CANCELLED:
      return CheckFailedError(
          absl::StatusCode::kCancelled,
          absl::StrCat("job ", job.id(), " was cancelled",
                       job.error().empty() ? "" : absl::StrCat(": ", job.error())));
    default:
      break;
  }
  for (const v1::VariantResult& v : job.result().variants()) {
    const v1::Correctness& c = v.correctness();
    if (c.checked() && !c.passed()) {
      return CheckFailedError(
          absl::StatusCode::kFailedPrecondition,
          absl::StrCat("job ", job.id(), ": ", job.spec().kernel(), "/", v.variant(),
                       " failed its correctness check: relative L2 error ", c.relative_l2_error(),
                       " vs tolerance ", c.tolerance(),
                       c.detail().empty() ? "" : absl::StrCat(" (", c.detail(), ")")));
    }
  }
  return absl::OkStatus();
}

absl::Status PrintJobReport(Session& session, const v1::Job& job) {
  if (session.json()) {
    KBENCH_RETURN_IF_ERROR(session.PrintJson(job));
  } else {
    session.out() << RenderJob(job);
  }
  return JobOutcome(job);
}

}  // namespace kbench::client
