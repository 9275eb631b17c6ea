// kbctl config set-context / use-context / get-contexts / current-context: named contexts in
// kbctl's config file, like kubectl's. Tokens are stored but never printed.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/commands/commands.h"
#include "client/config/config_file.h"
#include "client/errors.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

struct SetContextFlags {
  std::string name, server, token, token_file, ca_file;
  bool tls = false;
  bool use = false;
};

std::string PathOf(const Session& session) {
  return ConfigPath(session.GetEnv("KBENCH_CONFIG"), session.GetEnv("HOME"));
}

std::string CredentialsOf(const KbctlContext& c) {
  if (!c.token.empty()) return "token";
  if (!c.token_file.empty()) return absl::StrCat("token-file ", c.token_file);
  return "none";
}

absl::Status SetContext(Session& session, const SetContextFlags& f) {
  const std::string path = PathOf(session);
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(path));
  // Like kubectl, fields not given keep their values in an existing context.
  KbctlContext c;
  if (const KbctlContext* existing = config.Find(f.name); existing != nullptr) c = *existing;
  c.name = f.name;
  if (!f.server.empty()) c.server = f.server;
  if (!f.token.empty()) c.token = f.token, c.token_file.clear();
  if (!f.token_file.empty()) c.token_file = f.token_file, c.token.clear();
  if (!f.ca_file.empty()) c.ca_file = f.ca_file;
  c.tls = c.tls || f.tls;
  config.Put(std::move(c));
  if (f.use || config.current_context.empty()) config.current_context = f.name;
  KBENCH_RETURN_IF_ERROR(SaveConfig(path, config));
  session.Note(absl::StrCat("Context \"", f.name, "\" set in ", path,
                            config.current_context == f.name ? " (current)." : "."));
  return absl::OkStatus();
}

absl::Status UseContext(Session& session, const std::string& name) {
  const std::string path = PathOf(session);
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(path));
  if (config.Find(name) == nullptr) {
    return UsageError(absl::StrCat("no context \"", name, "\" in ", path,
                                   " (kbctl config set-context ", name, " --server HOST:PORT)"));
  }
  config.current_context = name;
  KBENCH_RETURN_IF_ERROR(SaveConfig(path, config));
  session.Note(absl::StrCat("Switched to context \"", name, "\"."));
  return absl::OkStatus();
}

absl::Status GetContexts(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(PathOf(session)));
  static constexpr char kRow[] = "%-8s %-16s %-28s %-30s %s\n";
  session.out() << absl::StrFormat(kRow, "CURRENT", "NAME", "SERVER", "CREDENTIALS", "CA");
  for (const KbctlContext& c : config.contexts) {
    const std::string ca = !c.ca_file.empty() ? c.ca_file : (c.tls ? "(system)" : "-");
    session.out() << absl::StrFormat(kRow, c.name == config.current_context ? "*" : "", c.name,
                                     c.server.empty() ? "-" : c.server, CredentialsOf(c), ca);
  }
  return absl::OkStatus();
}

absl::Status CurrentContext(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(PathOf(session)));
  if (config.current_context.empty()) {
    return UsageError("no current context (kbctl config use-context NAME)");
  }
  session.out() << config.current_context << "\n";
  return absl::OkStatus();
}

void AddSetContext(CLI::App& config, Action* action) {
  auto f = std::make_shared<SetContextFlags>();
  CLI::App* cmd = config.add_subcommand("set-context", "Create or update a named context");
  cmd->add_option("NAME", f->name, "Context name")->required();
  cmd->add_option("--server", f->server, "kbenchd address")->type_name("HOST:PORT");
  cmd->add_option("--token", f->token, "Bearer token, stored in the file (prefer --token-file)");
  cmd->add_option("--token-file", f->token_file, "File holding the bearer token");
  cmd->add_option("--ca-file", f->ca_file, "PEM CA that signed the server's certificate (TLS)");
  cmd->add_flag("--tls", f->tls, "TLS with the system's CAs");
  cmd->add_flag("--use", f->use, "Make it the current context");
  cmd->callback([f, action] { *action = [f](Session& s) { return SetContext(s, *f); }; });
}

}  // namespace

void AddConfigCommands(CLI::App& app, Action* action) {
  CLI::App* config = app.add_subcommand(
      "config", "Contexts in $KBENCH_CONFIG (default ~/.config/kbench/config.yaml)");
  config->require_subcommand(1);
  AddSetContext(*config, action);
  auto name = std::make_shared<std::string>();
  CLI::App* use = config->add_subcommand("use-context", "Make NAME the current context");
  use->add_option("NAME", *name, "Context name")->required();
  use->callback([name, action] { *action = [name](Session& s) { return UseContext(s, *name); }; });
  config->add_subcommand("get-contexts", "List the contexts (tokens are never shown)")
      ->callback([action] { *action = GetContexts; });
  config->add_subcommand("current-context", "Print the current context's name")->callback([action] {
    *action = CurrentContext;
  });
}

}  // namespace kbench::client
