// kbctl kernels [OP]: the catalogue, or one operation with its parameters and variants.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/commands/commands.h"
#include "client/format/catalogue_view.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

absl::Status RunKernels(Session& session, const std::string& op) {
  KBENCH_ASSIGN_OR_RETURN(v1::ListKernelsResponse kernels, session.connection().ListKernels());
  if (op.empty()) {
    if (session.json()) return session.PrintJson(kernels);
    session.out() << RenderKernelsTable(kernels);
    return absl::OkStatus();
  }
  std::vector<std::string> names;
  for (const v1::KernelInfo& k : kernels.kernels()) {
    if (k.name() == op) {
      if (session.json()) return session.PrintJson(k);
      session.out() << RenderKernel(k);
      return absl::OkStatus();
    }
    names.push_back(k.name());
  }
  return absl::NotFoundError(absl::StrCat("kernels: no operation named \"", op,
                                          "\"; the catalogue has ", absl::StrJoin(names, ", ")));
}

}  // namespace

void AddKernelsCommand(CLI::App& app, Action* action) {
  auto op = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "kernels", "List the kernel catalogue, or describe one operation and its variants");
  cmd->add_option("OP", *op, "Operation to describe");
  cmd->callback([op, action] { *action = [op](Session& s) { return RunKernels(s, *op); }; });
}

}  // namespace kbench::client
