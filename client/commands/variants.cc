// kbctl variants add|list|show|rm: user kernels registered by name per operation (issue 10,
// item 3), so that bench, compare and sweep list them like the catalogue's variants
// (`kbctl compare softmax --variants fused,@my_online`).
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/variant_view.h"
#include "client/user_kernel_flags.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// "my_online" and "@my_online" both name the variant "@my_online".
std::string VariantName(const std::string& name) {
  return !name.empty() && name[0] == '@' ? name : absl::StrCat("@", name);
}

struct VariantFlags {
  std::string operation;
  std::string name;
  UserKernelFlags kernel;
  std::string code_out;  // show: where to write the code
};

absl::Status RunAdd(Session& session, const VariantFlags& f) {
  if (!f.kernel.given()) return UsageError("variants add: --source FILE is required");
  UserKernelFlags kernel_flags = f.kernel;
  kernel_flags.name = VariantName(f.name);
  KBENCH_ASSIGN_OR_RETURN(v1::UserKernel kernel, BuildUserKernel(kernel_flags));
  v1::AddVariantRequest request;
  request.set_operation(f.operation);
  *request.mutable_kernel() = std::move(kernel);
  KBENCH_ASSIGN_OR_RETURN(v1::AddVariantResponse added, session.connection().AddVariant(request));
  if (session.json()) return session.PrintJson(added);
  session.out() << "registered " << added.variant().operation() << " " << added.variant().name()
                << " (sha256 " << added.variant().sha256().substr(0, 12)
                << "); use it as `--variants " << added.variant().name()
                << "` of bench, compare or sweep\n";
  return absl::OkStatus();
}

absl::Status RunList(Session& session, const VariantFlags& f) {
  v1::ListVariantsRequest request;
  request.set_operation(f.operation);
  KBENCH_ASSIGN_OR_RETURN(v1::ListVariantsResponse list,
                          session.connection().ListVariants(request));
  if (session.json()) return session.PrintJson(list);
  session.out() << RenderVariantList(list);
  return absl::OkStatus();
}

absl::Status RunShow(Session& session, const VariantFlags& f) {
  v1::GetVariantRequest request;
  request.set_operation(f.operation);
  request.set_name(VariantName(f.name));
  request.set_include_code(!f.code_out.empty());
  KBENCH_ASSIGN_OR_RETURN(v1::GetVariantResponse got, session.connection().GetVariant(request));
  if (!f.code_out.empty()) {
    std::ofstream out(f.code_out, std::ios::binary | std::ios::trunc);
    out << got.variant().kernel().code();
    if (!out) return UsageError(absl::StrCat("--code: cannot write '", f.code_out, "'"));
  }
  if (session.json()) {
    got.mutable_variant()->mutable_kernel()->clear_code();  // it went to --code, not the terminal
    return session.PrintJson(got);
  }
  session.out() << RenderVariant(got.variant());
  if (!f.code_out.empty()) session.out() << "code written to " << f.code_out << "\n";
  return absl::OkStatus();
}

absl::Status RunRemove(Session& session, const VariantFlags& f) {
  v1::DeleteVariantRequest request;
  request.set_operation(f.operation);
  request.set_name(VariantName(f.name));
  KBENCH_RETURN_IF_ERROR(session.connection().DeleteVariant(request));
  if (!session.json()) session.out() << "removed " << f.operation << " " << request.name() << "\n";
  return absl::OkStatus();
}

using Runner = absl::Status (*)(Session&, const VariantFlags&);

void OnChosen(CLI::App* cmd, Action* action, std::shared_ptr<VariantFlags> flags, Runner run) {
  cmd->callback(
      [action, flags, run] { *action = [flags, run](Session& s) { return run(s, *flags); }; });
}

}  // namespace

void AddVariantsCommands(CLI::App& app, Action* action) {
  CLI::App* variants = app.add_subcommand(
      "variants", "Your kernels registered by name, listed like the catalogue's variants");
  variants->require_subcommand(1);

  auto add = std::make_shared<VariantFlags>();
  CLI::App* add_cmd = variants->add_subcommand(
      "add", "Register a kernel as OP's variant @NAME (then: --variants fused,@NAME)");
  add_cmd->add_option("OP", add->operation, "Operation it implements")->required();
  add_cmd->add_option("NAME", add->name, "Its name, e.g. my_online or @my_online")->required();
  AddUserKernelFlags(add_cmd, &add->kernel, /*compile=*/false);
  OnChosen(add_cmd, action, add, RunAdd);

  auto list = std::make_shared<VariantFlags>();
  CLI::App* list_cmd = variants->add_subcommand("list", "Registered variants (of OP, or all)");
  list_cmd->add_option("OP", list->operation, "Only this operation's");
  OnChosen(list_cmd, action, list, RunList);

  auto show = std::make_shared<VariantFlags>();
  CLI::App* show_cmd =
      variants->add_subcommand("show", "A registered variant: owner, form, sha256, launch");
  show_cmd->add_option("OP", show->operation, "Operation")->required();
  show_cmd->add_option("NAME", show->name, "Variant")->required();
  show_cmd->add_option("--code", show->code_out,
                       "Write its code to this file (its owner and admins only)");
  OnChosen(show_cmd, action, show, RunShow);

  auto rm = std::make_shared<VariantFlags>();
  CLI::App* rm_cmd = variants->add_subcommand("rm", "Remove a variant (its owner or an admin)");
  rm_cmd->add_option("OP", rm->operation, "Operation")->required();
  rm_cmd->add_option("NAME", rm->name, "Variant")->required();
  OnChosen(rm_cmd, action, rm, RunRemove);
}

}  // namespace kbench::client
