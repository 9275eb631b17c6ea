// git rev-list and the local builds of bisect's revisions.
#include "client/bisect/git_builds.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "client/errors.h"
#include "common/report/bounded_process.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// Long enough for any listing of a local repository.
constexpr double kGitTimeoutSeconds = 60;

std::string ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> NonEmptyLines(const std::string& text) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) lines.emplace_back(line);
  }
  return lines;
}

bool IsCommitId(const std::string& text) {
  if (text.size() != 40) return false;
  for (char c : text) {
    if (!absl::ascii_isxdigit(c)) return false;
  }
  return true;
}

// Runs git with `args`; its stdout (stderr folded in) on success.
absl::StatusOr<std::string> Git(const std::vector<std::string>& args) {
  const std::string git = report::FindProgram("git");
  if (git.empty()) return UsageError("--revs: git is not on $PATH");
  const std::string log =
      std::filesystem::temp_directory_path() / absl::StrCat("kbctl-bisect-git-", getpid(), ".log");
  std::vector<std::string> argv = {git};
  argv.insert(argv.end(), args.begin(), args.end());
  const absl::Status s = report::RunBounded(argv, log, kGitTimeoutSeconds);
  std::string out = ReadText(log);
  std::filesystem::remove(log);
  if (!s.ok()) {
    return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                            absl::StrCat("git ", args.front(), ": ", s.message()));
  }
  return out;
}

absl::StatusOr<std::string> CommitOf(const std::string& rev) {
  KBENCH_ASSIGN_OR_RETURN(
      std::string out, Git({"rev-parse", "--verify", "--quiet", absl::StrCat(rev, "^{commit}")}));
  const std::vector<std::string> lines = NonEmptyLines(out);
  if (lines.size() != 1 || !IsCommitId(lines[0])) {
    return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                            absl::StrCat("--revs: '", rev, "' is not a commit"));
  }
  return lines[0];
}

Version RevisionVersion(const std::string& commit) {
  Version v;
  v.kind = VersionKind::kRevision;
  v.revision = commit;
  v.label = commit.substr(0, 12);
  return v;
}

}  // namespace

absl::StatusOr<std::vector<Version>> RevisionVersions(const std::string& range) {
  const size_t dots = range.find("..");
  if (dots == std::string::npos || dots == 0 || dots + 2 >= range.size() ||
      range.find("..", dots + 2) != std::string::npos || range[dots + 2] == '.') {
    return UsageError(absl::StrCat("--revs: '", range, "' is not GOOD..BAD"));
  }
  // Resolved first: a revision that starts with '-' can then never reach git as an option.
  KBENCH_ASSIGN_OR_RETURN(std::string good, CommitOf(range.substr(0, dots)));
  KBENCH_ASSIGN_OR_RETURN(std::string bad, CommitOf(range.substr(dots + 2)));
  KBENCH_ASSIGN_OR_RETURN(std::string listed, Git({"rev-list", "--reverse", "--first-parent",
                                                   absl::StrCat(good, "..", bad)}));
  std::vector<Version> versions = {RevisionVersion(good)};
  for (const std::string& line : NonEmptyLines(listed)) {
    if (IsCommitId(line)) versions.push_back(RevisionVersion(line));
  }
  return versions;
}

absl::StatusOr<std::string> RevisionBuilder::PathFor(const std::string& revision) {
  if (auto it = built_.find(revision); it != built_.end()) return it->second;
  const std::string out = absl::StrCat(log_dir_, "/build-", revision, ".out");
  const std::string log = absl::StrCat(log_dir_, "/build-", revision, ".log");
  const std::string command = absl::StrReplaceAll(command_, {{"{rev}", revision}});
  // The command's stdout to its own file ("$1", passed as data), its stderr to the log.
  const absl::Status s = report::RunBounded(
      {"/bin/sh", "-c", absl::StrCat("(", command, ") > \"$1\""), "sh", out}, log, timeout_);
  if (!s.ok()) {
    return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                            absl::StrCat("--build for ", revision.substr(0, 12), ": ", s.message(),
                                         " (log: ", log, ")"));
  }
  const std::vector<std::string> lines = NonEmptyLines(ReadText(out));
  if (lines.empty() || !std::filesystem::is_regular_file(lines.back())) {
    return CheckFailedError(
        absl::StatusCode::kFailedPrecondition,
        absl::StrCat("--build for ", revision.substr(0, 12), ": its last line on stdout, '",
                     lines.empty() ? "" : lines.back(), "', is not the path of a built file"));
  }
  built_[revision] = lines.back();
  return lines.back();
}

}  // namespace kbench::client
