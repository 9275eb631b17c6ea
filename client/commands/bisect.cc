// kbctl bisect OP: the first of an ordered list of kernel versions that is SLOWER than the
// first (good) one, by binary search over interleaved A/Bs (issue 26). Exit 0 with a culprit,
// 1 when no version is slower, 4 when a step stays UNSURE at --max-repeat pairs.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/args.h"
#include "client/bisect/git_builds.h"
#include "client/bisect/search.h"
#include "client/bisect/version_steps.h"
#include "client/bisect/versions.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/bisect_view.h"
#include "client/job_wait.h"
#include "client/paired/paired_compare.h"
#include "client/paired/paired_run.h"
#include "client/spec_options.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

struct BisectFlags {
  SpecFlags spec;
  std::vector<std::string> versions;
  std::vector<std::string> shapes;
  std::string build;
  std::string revs;
  std::string build_timeout = "10m";
  std::string repeat;
  std::string max_repeat;
  std::string min_effect;
};

// Exactly one way of giving the versions.
absl::StatusOr<std::vector<Version>> VersionsOf(const BisectFlags& f) {
  const int ways = (f.versions.empty() ? 0 : 1) + (f.shapes.empty() ? 0 : 1) +
                   (f.revs.empty() && f.build.empty() ? 0 : 1);
  if (ways != 1) {
    return UsageError(
        "give the versions one way: --versions A,B,..., --variant V --shapes "
        "S0,S1,..., or --build 'CMD {rev}' --revs GOOD..BAD");
  }
  if (!f.shapes.empty()) {
    if (f.spec.shape.has_value()) {
      return UsageError("--shape: the versions are --shapes; give one or the other");
    }
    return ParseShapeVersions(f.spec.variant, f.shapes);
  }
  if (!f.spec.variant.empty()) {
    return UsageError(
        "--variant: names the variant of --shapes versions; list variants as "
        "--versions");
  }
  if (!f.versions.empty()) return ParseVersionList(f.versions);
  if (f.build.empty() || f.revs.empty()) {
    return UsageError("--build and --revs go together: --build 'CMD {rev}' --revs GOOD..BAD");
  }
  if (!absl::StrContains(f.build, "{rev}")) {
    return UsageError("--build: the command must hold {rev}, replaced by each revision");
  }
  return RevisionVersions(f.revs);
}

absl::StatusOr<BisectOptions> SearchOptionsOf(const BisectFlags& f) {
  BisectOptions options;
  if (!f.repeat.empty()) {
    KBENCH_ASSIGN_OR_RETURN(int64_t n, ParseInt("--repeat", f.repeat, 2, kMaxPairs));
    options.first_pairs = static_cast<int>(n);
  }
  if (!f.max_repeat.empty()) {
    KBENCH_ASSIGN_OR_RETURN(int64_t n, ParseInt("--max-repeat", f.max_repeat, 2, kMaxPairs));
    options.max_pairs = static_cast<int>(n);
  }
  options.max_pairs = std::max(options.max_pairs, options.first_pairs);
  return options;
}

// The spec every step shares: the flags' job with its variants left to the versions.
absl::StatusOr<v1::SubmitJobRequest> BaseRequest(Session& session, const BisectFlags& f,
                                                 bool shape_versions) {
  if (f.spec.user.given()) {
    return UsageError(
        "--source: bisect's kernel files are its --versions (or --build's output); "
        "--entry, --grid, --block, ... say how to launch them");
  }
  if (f.spec.placements.has_value()) {
    return UsageError("--placements: bisect sets them from --repeat (one pair per placement)");
  }
  if (f.spec.no_wait) return UsageError("--no-wait: bisect decides on its jobs' results");
  SpecFlags flags = f.spec;
  // BuildSubmitRequest checks the spec of one variant; the versions replace this stand-in.
  if (flags.variant.empty()) flags.variant = "bisect-version";
  KBENCH_ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                          BuildSubmitRequest(flags, SubmitCommand::kBench, DefaultOwner(session)));
  if (!shape_versions) KBENCH_RETURN_IF_ERROR(ResolveDefaults(session, &request));
  request.mutable_spec()->clear_variants();
  return request;
}

absl::Status RunBisect(Session& session, const BisectFlags& f) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<Version> versions, VersionsOf(f));
  if (versions.size() < 2) {
    return UsageError(absl::StrCat("bisect needs at least two versions (the good one first), got ",
                                   versions.size()));
  }
  KBENCH_ASSIGN_OR_RETURN(BisectOptions search, SearchOptionsOf(f));
  VersionStepsConfig config;
  if (!f.min_effect.empty()) {
    KBENCH_ASSIGN_OR_RETURN(config.paired.min_effect_percent,
                            ParsePercent("--min-effect", f.min_effect));
  }
  const bool shape_versions = versions[0].kind == VersionKind::kShape;
  KBENCH_ASSIGN_OR_RETURN(config.base, BaseRequest(session, f, shape_versions));
  if (!f.build.empty()) {
    KBENCH_ASSIGN_OR_RETURN(double timeout,
                            ParseSeconds("--build-timeout", f.build_timeout, false));
    config.builder = std::make_shared<RevisionBuilder>(
        f.build, std::filesystem::temp_directory_path().string(), timeout);
  }
  config.launch = f.spec.user;
  config.versions = versions;
  KBENCH_ASSIGN_OR_RETURN(
      BisectResult result,
      Bisect(static_cast<int>(versions.size()), VersionSteps(session, std::move(config)), search));
  session.out() << (session.json() ? BisectJson(versions, result) : RenderBisect(versions, result));
  switch (result.outcome) {
    case BisectOutcome::kFound:
      return absl::OkStatus();
    case BisectOutcome::kNoneSlower:
      return CheckFailedError(absl::StatusCode::kNotFound, BisectConclusion(versions, result));
    case BisectOutcome::kUndecided:
      return UndecidedError(BisectConclusion(versions, result));
  }
  return absl::OkStatus();
}

}  // namespace

void AddBisectCommand(CLI::App& app, Action* action) {
  auto f = std::make_shared<BisectFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bisect",
      "Find the first of an ordered list of kernel versions that is SLOWER than the first: "
      "a binary search, each step an interleaved A/B of the first version with one other. "
      "Exit 0: found; 1: no version is slower; 4: a step stayed UNSURE at --max-repeat pairs");
  AddSpecFlags(cmd, SubmitCommand::kBench, &f->spec);
  cmd->add_option("--versions", f->versions,
                  "The versions in order, the good one first: @name (registered variant), a "
                  "kernel file (a path with '/' or ending in .cu, .ptx, .cubin, .fatbin, .json; "
                  "launched as --entry/--grid/--block say), or a catalogue variant")
      ->type_name("V0,V1,...")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--shapes", f->shapes,
                  "Versions as shapes of one --variant (runs on the cpu device too): each step's "
                  "pair is two jobs back to back, alternating which goes first")
      ->type_name("S0,S1,...")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--build", f->build,
                  "With --revs: a shell command that builds the kernel of revision {rev} and "
                  "prints the built file's path as its last stdout line; run locally, only for "
                  "the revisions the search visits")
      ->type_name("'CMD {rev}'");
  cmd->add_option("--revs", f->revs,
                  "The versions are GOOD and the commits of GOOD..BAD (first-parent), oldest "
                  "first, in the current directory's git repository")
      ->type_name("GOOD..BAD");
  cmd->add_option("--build-timeout", f->build_timeout, "Bound on one build (default 10m)")
      ->type_name("DURATION");
  cmd->add_option("--repeat", f->repeat, "Pairs of a step's A/B (default 8)")->type_name("N");
  cmd->add_option("--max-repeat", f->max_repeat,
                  "An UNSURE step is re-run with twice the pairs up to this (default 64)")
      ->type_name("N");
  cmd->add_option("--min-effect", f->min_effect,
                  "Smallest change, percent, that counts as SLOWER (default 3)")
      ->type_name("PCT");
  cmd->callback([f, action] { *action = [f](Session& s) { return RunBisect(s, *f); }; });
}

}  // namespace kbench::client
