// kbctl's command line: global flags, subcommands, and the mapping of outcomes to exit codes.
#include "client/kbctl.h"

#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/args.h"
#include "client/command_suggestion.h"
#include "client/commands/commands.h"
#include "client/config/resolve.h"
#include "client/errors.h"
#include "client/format/table.h"
#include "client/format/yaml.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

constexpr char kFooter[] = R"(Output:
  -o table (default) prints tables for people; progress and notes go to stderr.
  -o json prints exactly one JSON document on stdout (protobuf JSON with the .proto field
  names, enum value names and every field); nothing else goes to stdout. -o yaml prints the
  same document as YAML; -o wide is the table with every column.

Environment:
  KBENCH_SERVER  the server when --server is not given (default: the context's, else
                 kbenchd's Unix socket when there is one, else 127.0.0.1:50051); unix:PATH
                 names a Unix socket
  KBENCH_TOKEN   the bearer token when --token is not given (default: the context's)
  KBENCH_CONFIG  the config file of contexts (default ~/.config/kbench/config.yaml)

Exit codes:
  0  success
  1  the job FAILED or was CANCELLED, a correctness check failed, an artifact's sha256 did
     not match, the server is not SERVING, a local file could not be written, or a verdict
     named by --fail-on was reached (kbctl diff, --baseline); kbctl bisect: no version is
     slower than the good one
  2  usage error (unknown flag, bad shape or value); nothing was sent
  3  RPC error (server unreachable, INVALID_ARGUMENT, NOT_FOUND, ...); stderr says
     "kbctl: <CODE>: <message>"
  4  kbctl bisect could not decide: a step stayed UNSURE at --max-repeat pairs)";

struct GlobalFlags {
  ConnectionFlags connection;
  std::string output = "table";
  bool no_headers = false;
  std::string timeout = "30s";
};

// `offline`: the command needs no server (kbctl config ...), so nothing about one is resolved.
absl::StatusOr<GlobalOptions> ResolveGlobals(const GlobalFlags& flags, const Io& io, bool offline) {
  GlobalOptions options;
  if (!offline) {
    KBENCH_ASSIGN_OR_RETURN(ResolvedConnection connection,
                            ResolveConnection(flags.connection, io, kDefaultServer));
    options.server = connection.server;
    options.security = connection.security;
  }
  if (flags.output == "table" || flags.output == "wide") {
    options.output = OutputFormat::kTable;
  } else if (flags.output == "json" || flags.output == "yaml") {
    // YAML is the JSON document converted once the command has printed it (RunKbctl).
    options.output = OutputFormat::kJson;
  } else {
    // -o is the output format on every command, as in kubectl; files and directories are
    // --file/-f and --dir/-d (report, bundle, artifacts get, sweep get).
    const bool path_like = absl::StrContains(flags.output, '/') ||
                           absl::StrContains(flags.output, '.') || flags.output == "-";
    return UsageError(absl::StrCat(
        "-o: unknown output format \"", flags.output, "\"; expected table, wide, json or yaml",
        path_like ? " (-o is the output format on every command; write to a file with "
                    "--file/-f PATH, or into a directory with --dir/-d DIR)"
                  : ""));
  }
  KBENCH_ASSIGN_OR_RETURN(absl::Duration timeout, ParseDuration("--timeout", flags.timeout));
  if (timeout <= absl::ZeroDuration()) {
    return UsageError(absl::StrCat("--timeout: \"", flags.timeout, "\" must be positive"));
  }
  options.timeout = timeout;
  return options;
}

// The subcommand path of the app that failed to parse, for the "--help" hint.
std::string CommandPath(const CLI::App* app) {
  std::string path;
  for (; app != nullptr; app = app->get_parent()) {
    path = path.empty() ? app->get_name() : absl::StrCat(app->get_name(), " ", path);
  }
  return path;
}

}  // namespace

int RunKbctl(const std::vector<std::string>& args, const Io& io) {
  CLI::App app("kbctl: the command-line client of kbenchd, the GPU kernel benchmarking service",
               "kbctl");
  app.footer(kFooter);
  app.fallthrough();
  app.require_subcommand(1);
  app.set_version_flag("--version", KBENCH_VERSION);
  GlobalFlags globals;
  app.add_option("--server", globals.connection.server,
                 absl::StrCat("kbenchd address HOST:PORT or unix:PATH (default $KBENCH_SERVER, "
                              "the context's, kbenchd's Unix socket, else ",
                              kDefaultServer, ")"))
      ->type_name("HOST:PORT");
  app.add_option("--token", globals.connection.token,
                 "Bearer token (default $KBENCH_TOKEN, else the context's); never printed")
      ->type_name("TOKEN");
  app.add_option("--ca-file", globals.connection.ca_file,
                 "Use TLS, verifying the server against this PEM CA")
      ->type_name("FILE");
  app.add_flag("--tls", globals.connection.tls, "Use TLS, verifying with the system's CAs");
  app.add_option("--context", globals.connection.context,
                 "Context of the config file to use (default: its current-context)")
      ->type_name("NAME");
  app.add_option("-o,--output", globals.output,
                 "Output format: table (at most 100 columns), wide (every column), json or yaml")
      ->type_name("FORMAT");
  app.add_flag("--no-headers", globals.no_headers, "Tables without their header line");
  app.add_option("--timeout", globals.timeout,
                 "Deadline of each call that is not a stream, e.g. 30s, 2m (default 30s)")
      ->type_name("DURATION");

  Action action;
  AddKernelsCommand(app, &action);
  AddDevicesCommand(app, &action);
  AddNodesCommand(app, &action);
  AddUsageCommand(app, &action);
  AddBenchCommands(app, &action);
  AddCompileCommand(app, &action);
  AddJobCommands(app, &action);
  AddArtifactCommands(app, &action);
  AddProfileCommand(app, &action);
  AddHealthCommand(app, &action);
  AddConfigCommands(app, &action);
  AddSweepCommands(app, &action);
  AddDiffCommand(app, &action);
  AddHistoryCommands(app, &action);
  AddVariantsCommands(app, &action);
  AddBisectCommand(app, &action);
  AddReproCommands(app, &action);
  AddVersionCommand(app, &action);
  AddCompletionCommands(app, &action);

  std::vector<const char*> argv = {"kbctl"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  const CLI::App* failed = &app;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, *io.out, *io.err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, *io.out, *io.err);
  } catch (const CLI::CallForVersion&) {
    *io.out << "kbctl " << KBENCH_VERSION << "\n";
    return static_cast<int>(ExitCode::kOk);
  } catch (const CLI::ParseError& e) {
    // The innermost subcommand that was reached, for a precise --help hint.
    for (const CLI::App* sub = &app; sub != nullptr;) {
      failed = sub;
      const std::vector<CLI::App*> parsed = sub->get_subcommands();
      sub = parsed.empty() ? nullptr : parsed.front();
    }
    // A subcommand's leftover words land on the app that fell through to (the root).
    std::vector<std::string> leftover = failed->remaining();
    if (leftover.empty()) leftover = app.remaining();
    const std::string unknown = UnknownCommandLine(*failed, CommandPath(failed), leftover);
    *io.err << "kbctl: " << (unknown.empty() ? std::string(e.what()) : unknown) << "\nRun '"
            << CommandPath(failed) << " --help' for usage.\n";
    return static_cast<int>(ExitCode::kUsage);
  }

  // Commands that need no server: nothing about one is resolved (a broken config file included).
  const bool offline =
      app.got_subcommand("config") || app.got_subcommand("completion") || app.got_subcommand("man");
  absl::StatusOr<GlobalOptions> options = ResolveGlobals(globals, io, offline);
  Table::SetStyle({globals.output == "wide", !globals.no_headers});
  absl::Status status = options.status();
  if (status.ok()) {
    // -o yaml: the command prints its JSON document into a buffer, converted when it is done.
    const bool yaml = globals.output == "yaml";
    std::ostringstream json;
    Io command_io = io;
    if (yaml) command_io.out = &json;
    Session session(*options, command_io);
    status = action ? action(session) : UsageError("no subcommand given");
    if (yaml && !json.str().empty()) {
      absl::StatusOr<std::string> converted = JsonToYaml(json.str());
      *io.out << (converted.ok() ? *converted : json.str());
      if (!converted.ok() && status.ok()) status = converted.status();
    }
  }
  if (!status.ok()) *io.err << ErrorLine(status) << "\n";
  io.out->flush();
  return static_cast<int>(ExitCodeFor(status));
}

}  // namespace kbench::client
