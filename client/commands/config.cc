// kbctl config set-context / use-context / get-contexts / current-context / delete-context /
// rename-context / view: named contexts in kbctl's config file, like kubectl's. Tokens are
// stored but never printed. Every verb honours -o json (a google.protobuf.Struct, so that the
// JSON is written by the same printer as every other kbctl reply).
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/commands/commands.h"
#include "client/config/config_file.h"
#include "client/errors.h"
#include "common/status_macros.h"
#include "google/protobuf/struct.pb.h"

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

std::string CaOf(const KbctlContext& c) {
  return !c.ca_file.empty() ? c.ca_file : (c.tls ? "(system)" : "-");
}

google::protobuf::Value Text(const std::string& text) {
  google::protobuf::Value v;
  v.set_string_value(text);
  return v;
}

// A context as -o json shows it: never its token, only which credentials it has.
google::protobuf::Value ContextJson(const KbctlContext& c, const std::string& current) {
  google::protobuf::Value v;
  auto& fields = *v.mutable_struct_value()->mutable_fields();
  fields["name"] = Text(c.name);
  fields["server"] = Text(c.server);
  fields["credentials"] = Text(CredentialsOf(c));
  fields["ca_file"] = Text(c.ca_file);
  fields["tls"].set_bool_value(c.tls || !c.ca_file.empty());
  fields["current"].set_bool_value(c.name == current);
  return v;
}

// What a verb that changes the file did, as one JSON document or one note.
absl::Status Changed(Session& session, const std::string& what, const std::string& name,
                     const std::string& path, const KbctlConfig& config, const std::string& note) {
  if (!session.json()) {
    session.Note(note);
    return absl::OkStatus();
  }
  google::protobuf::Struct out;
  auto& fields = *out.mutable_fields();
  fields["action"] = Text(what);
  fields["context"] = Text(name);
  fields["file"] = Text(path);
  fields["current_context"] = Text(config.current_context);
  return session.PrintJson(out);
}

absl::StatusOr<KbctlConfig> LoadWithContext(const std::string& path, const std::string& name) {
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(path));
  if (config.Find(name) == nullptr) {
    return UsageError(absl::StrCat("no context \"", name, "\" in ", path,
                                   " (kbctl config get-contexts lists them)"));
  }
  return config;
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
  return Changed(session, "set", f.name, path, config,
                 absl::StrCat("Context \"", f.name, "\" set in ", path,
                              config.current_context == f.name ? " (current)." : "."));
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
  return Changed(session, "use", name, path, config,
                 absl::StrCat("Switched to context \"", name, "\"."));
}

absl::Status DeleteContext(Session& session, const std::string& name) {
  const std::string path = PathOf(session);
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadWithContext(path, name));
  std::erase_if(config.contexts, [&](const KbctlContext& c) { return c.name == name; });
  // kubectl leaves a dangling current-context; a deleted one is simply no longer current.
  const bool was_current = config.current_context == name;
  if (was_current) config.current_context.clear();
  KBENCH_RETURN_IF_ERROR(SaveConfig(path, config));
  return Changed(
      session, "delete", name, path, config,
      absl::StrCat("Deleted context \"", name, "\" from ", path,
                   was_current ? " (it was current; kbctl config use-context NAME)." : "."));
}

absl::Status RenameContext(Session& session, const std::string& from, const std::string& to) {
  const std::string path = PathOf(session);
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadWithContext(path, from));
  if (config.Find(to) != nullptr) {
    return UsageError(absl::StrCat("a context \"", to, "\" already exists in ", path,
                                   " (kbctl config delete-context ", to, " first)"));
  }
  for (KbctlContext& c : config.contexts) {
    if (c.name == from) c.name = to;
  }
  if (config.current_context == from) config.current_context = to;
  KBENCH_RETURN_IF_ERROR(SaveConfig(path, config));
  return Changed(session, "rename", to, path, config,
                 absl::StrCat("Context \"", from, "\" renamed to \"", to, "\"."));
}

// The whole file as kbctl reads it, tokens replaced by REDACTED (kubectl config view's rule).
absl::Status ViewConfig(Session& session) {
  const std::string path = PathOf(session);
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(path));
  if (session.json()) {
    google::protobuf::Struct out;
    auto& fields = *out.mutable_fields();
    fields["file"] = Text(path);
    fields["current_context"] = Text(config.current_context);
    auto* contexts = fields["contexts"].mutable_list_value();
    for (const KbctlContext& c : config.contexts) {
      *contexts->add_values() = ContextJson(c, config.current_context);
    }
    return session.PrintJson(out);
  }
  session.out() << "# " << path << "\ncurrent-context: " << config.current_context
                << "\ncontexts:\n";
  for (const KbctlContext& c : config.contexts) {
    session.out() << "  - name: " << c.name << "\n";
    if (!c.server.empty()) session.out() << "    server: " << c.server << "\n";
    if (!c.token.empty()) session.out() << "    token: REDACTED\n";
    if (!c.token_file.empty()) session.out() << "    token-file: " << c.token_file << "\n";
    if (!c.ca_file.empty()) session.out() << "    ca-file: " << c.ca_file << "\n";
    if (c.tls) session.out() << "    tls: true\n";
  }
  return absl::OkStatus();
}

absl::Status GetContexts(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(PathOf(session)));
  if (session.json()) {
    google::protobuf::Struct out;
    auto* contexts = (*out.mutable_fields())["contexts"].mutable_list_value();
    for (const KbctlContext& c : config.contexts) {
      *contexts->add_values() = ContextJson(c, config.current_context);
    }
    return session.PrintJson(out);
  }
  static constexpr char kRow[] = "%-8s %-16s %-28s %-30s %s\n";
  session.out() << absl::StrFormat(kRow, "CURRENT", "NAME", "SERVER", "CREDENTIALS", "CA");
  for (const KbctlContext& c : config.contexts) {
    session.out() << absl::StrFormat(kRow, c.name == config.current_context ? "*" : "", c.name,
                                     c.server.empty() ? "-" : c.server, CredentialsOf(c), CaOf(c));
  }
  return absl::OkStatus();
}

absl::Status CurrentContext(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(KbctlConfig config, LoadConfig(PathOf(session)));
  if (config.current_context.empty()) {
    return UsageError("no current context (kbctl config use-context NAME)");
  }
  if (session.json()) {
    google::protobuf::Struct out;
    (*out.mutable_fields())["current_context"] = Text(config.current_context);
    return session.PrintJson(out);
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
  auto deleted = std::make_shared<std::string>();
  CLI::App* del = config->add_subcommand("delete-context", "Remove context NAME from the file");
  del->add_option("NAME", *deleted, "Context name")->required();
  del->callback([deleted, action] {
    *action = [deleted](Session& s) { return DeleteContext(s, *deleted); };
  });
  auto names = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* rename = config->add_subcommand("rename-context", "Rename context OLD to NEW");
  rename->add_option("OLD", names->first, "Current name")->required();
  rename->add_option("NEW", names->second, "New name")->required();
  rename->callback([names, action] {
    *action = [names](Session& s) { return RenameContext(s, names->first, names->second); };
  });
  config->add_subcommand("view", "Print the config file, tokens shown as REDACTED")
      ->callback([action] { *action = ViewConfig; });
}

}  // namespace kbench::client
