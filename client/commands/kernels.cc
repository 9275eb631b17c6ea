// kbctl kernels [OP]: the catalogue, or one operation with its parameters and variants.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/args.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/abi_view.h"
#include "client/format/catalogue_view.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

struct KernelsFlags {
  std::string op;
  bool abi = false;
  std::string dtype = "f32";
};

absl::Status RunKernels(Session& session, const KernelsFlags& flags) {
  const std::string& op = flags.op;
  if (flags.abi && op.empty())
    return UsageError("--abi: name an operation (kbctl kernels OP --abi)");
  KBENCH_ASSIGN_OR_RETURN(v1::ListKernelsResponse kernels, session.connection().ListKernels());
  if (op.empty()) {
    if (session.json()) return session.PrintJson(kernels);
    session.out() << RenderKernelsTable(kernels);
    return absl::OkStatus();
  }
  std::vector<std::string> names;
  for (const v1::KernelInfo& k : kernels.kernels()) {
    if (k.name() == op) {
      if (session.json()) return flags.abi ? session.PrintJson(k.abi()) : session.PrintJson(k);
      if (flags.abi) {
        KBENCH_ASSIGN_OR_RETURN(const v1::DType dtype, ParseDType("--dtype", flags.dtype));
        session.out() << RenderAbi(k, dtype);
        return absl::OkStatus();
      }
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
  auto flags = std::make_shared<KernelsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "kernels", "List the kernel catalogue, or describe one operation and its variants");
  cmd->add_option("OP", flags->op, "Operation to describe");
  cmd->add_flag(
      "--abi", flags->abi,
      "Print the kernel ABI your own variant implements, as CUDA C and Triton signatures");
  cmd->add_option("--dtype", flags->dtype, "Element type of the CUDA signature (default f32)")
      ->type_name("TYPE");
  cmd->callback(
      [flags, action] { *action = [flags](Session& s) { return RunKernels(s, *flags); }; });
}

}  // namespace kbench::client
