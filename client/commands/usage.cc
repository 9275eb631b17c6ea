// kbctl usage: each owner's GPU time, fair-share standing, jobs and limits.
#include "client/commands/commands.h"
#include "client/format/usage_view.h"
#include "common/status_macros.h"

namespace kbench::client {

void AddUsageCommand(CLI::App& app, Action* action) {
  CLI::App* cmd = app.add_subcommand(
      "usage", "GPU time per owner (decayed, today, total), fair-share order, jobs and limits");
  auto owner = std::make_shared<std::string>();
  cmd->add_option("owner", *owner, "Only this owner");
  cmd->callback([action, owner] {
    *action = [owner](Session& session) -> absl::Status {
      v1::GetUsageRequest request;
      request.set_owner(*owner);
      KBENCH_ASSIGN_OR_RETURN(v1::GetUsageResponse usage, session.connection().GetUsage(request));
      if (session.json()) return session.PrintJson(usage);
      session.out() << RenderUsage(usage);
      return absl::OkStatus();
    };
  });
}

}  // namespace kbench::client
