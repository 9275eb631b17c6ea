// kbctl get / jobs / watch / cancel: one job, the job list with filters and paging, following a
// job to its end, and cancelling one.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/args.h"
#include "client/commands/commands.h"
#include "client/format/job_view.h"
#include "client/job_wait.h"
#include "client/pages.h"
#include "client/sweep_wait.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// ListJobsRequest.page_size: at most 1000 (service.proto).
constexpr int64_t kMaxJobsPageSize = 1000;

struct ListFlags {
  std::string state;
  std::string kernel;
  std::string device;
  std::string limit;
  std::string page_token;
  bool all = false;
};

absl::StatusOr<v1::ListJobsRequest> BuildListRequest(const ListFlags& f) {
  v1::ListJobsRequest request;
  if (!f.state.empty()) {
    KBENCH_ASSIGN_OR_RETURN(v1::JobState state, ParseJobState("--state", f.state));
    request.set_state(state);
  }
  request.set_kernel(f.kernel);
  if (!f.device.empty()) {
    KBENCH_ASSIGN_OR_RETURN(std::string device, ParseDevice("--device", f.device));
    request.set_device(device);
  }
  if (!f.limit.empty()) {
    KBENCH_ASSIGN_OR_RETURN(int64_t limit, ParseInt("--limit", f.limit, 1, kMaxJobsPageSize));
    request.set_page_size(static_cast<int32_t>(limit));
  }
  request.set_page_token(f.page_token);
  return request;
}

absl::Status RunJobs(Session& session, const ListFlags& flags) {
  KBENCH_ASSIGN_OR_RETURN(v1::ListJobsRequest request, BuildListRequest(flags));
  KBENCH_ASSIGN_OR_RETURN(
      const v1::ListJobsResponse all,
      FetchPages<v1::ListJobsResponse>(
          request, flags.all, "ListJobs",
          [&](const v1::ListJobsRequest& r) { return session.connection().ListJobs(r); },
          [](const v1::ListJobsResponse& page, v1::ListJobsResponse* all) {
            all->mutable_jobs()->MergeFrom(page.jobs());
          }));
  if (session.json()) return session.PrintJson(all);
  if (all.jobs().empty()) {
    session.Note("kbctl: no jobs match");
    return absl::OkStatus();
  }
  session.out() << RenderJobsTable({all.jobs().begin(), all.jobs().end()}, session.Now());
  if (!all.next_page_token().empty()) {
    session.Note(
        absl::StrCat("kbctl: more jobs: --page-token ", all.next_page_token(), " (or --all)"));
  }
  return absl::OkStatus();
}

absl::Status RunGet(Session& session, const std::string& id) {
  if (IsSweepId(id)) return PrintSweepReport(session, id);
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, session.connection().GetJob(id));
  return PrintJobReport(session, job);
}

absl::Status RunWatch(Session& session, const std::string& id) {
  if (IsSweepId(id)) {
    KBENCH_RETURN_IF_ERROR(WaitForSweep(session, id).status());
    return PrintSweepReport(session, id);
  }
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, session.connection().GetJob(id));
  KBENCH_ASSIGN_OR_RETURN(v1::Job done, WaitForJob(session, job));
  return PrintJobReport(session, done);
}

absl::Status RunCancel(Session& session, const std::string& id) {
  if (IsSweepId(id)) return CancelSweep(session, id);
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, session.connection().CancelJob(id));
  if (session.json()) return session.PrintJson(job);
  session.out() << "job " << job.id() << " " << StateName(job.state())
                << (IsTerminal(job.state()) ? "" : " (cancel requested; stops at the next sample)")
                << "\n";
  return absl::OkStatus();
}

absl::Status RunDelete(Session& session, const std::string& id) {
  KBENCH_ASSIGN_OR_RETURN(v1::DeleteJobResponse deleted, session.connection().DeleteJob(id));
  if (session.json()) return session.PrintJson(deleted);
  session.out() << "job " << id << " deleted with its " << deleted.artifacts_removed()
                << " artifact(s) and history rows\n";
  return absl::OkStatus();
}

// A subcommand taking one JOB positional and running `run` with it.
void AddJobIdCommand(CLI::App& app, Action* action, const char* name, const char* description,
                     absl::Status (*run)(Session&, const std::string&)) {
  auto id = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->add_option("JOB", *id, "Job id")->required();
  cmd->callback([id, action, run] { *action = [id, run](Session& s) { return run(s, *id); }; });
}

}  // namespace

void AddJobCommands(CLI::App& app, Action* action) {
  AddJobIdCommand(
      app, action, "get",
      "Show one job (spec, state, timing, error, artifacts, result) or sweep (its table)", RunGet);
  AddJobIdCommand(app, action, "watch",
                  "Follow a job (or a sweep: points done, ETA) until it ends, then print it",
                  RunWatch);
  AddJobIdCommand(app, action, "cancel",
                  "Cancel a queued or running job, or a sweep's remaining points", RunCancel);

  auto flags = std::make_shared<ListFlags>();
  CLI::App* jobs = app.add_subcommand("jobs", "List jobs, newest first");
  jobs->add_option("--state", flags->state,
                   "Only jobs in this state: queued, running, succeeded, failed, cancelled")
      ->type_name("STATE");
  jobs->add_option("--kernel", flags->kernel, "Only jobs of this operation")->type_name("OP");
  jobs->add_option("--device", flags->device,
                   "Only jobs on this device (cpu, cuda:N; in a fleet NODE/DEVICE)")
      ->type_name("DEVICE");
  jobs->add_option("--limit", flags->limit, "Jobs per page, 1 to 1000 (default 50)")
      ->type_name("N");
  jobs->add_option("--page-token", flags->page_token, "Continue after an earlier page")
      ->type_name("TOKEN");
  jobs->add_flag("--all", flags->all, "Follow the page tokens to the last page");
  AddJobIdCommand(*jobs, action, "rm",
                  "Delete a finished job of yours (admins: anyone's) with its artifacts and "
                  "history rows",
                  RunDelete);
  jobs->callback([jobs, flags, action] {
    if (jobs->got_subcommand("rm")) return;  // its own action is set
    *action = [flags](Session& s) { return RunJobs(s, *flags); };
  });
}

}  // namespace kbench::client
