// kbctl bisect --build 'CMD {rev}' --revs GOOD..BAD (issue 26): the revisions of a git range
// as versions, GOOD first, each built locally when the search first needs it. CMD runs under
// /bin/sh in the current directory with {rev} replaced by the full commit id; its last line on
// stdout is the path of the kernel file it built. Nothing is built that the search never visits.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/bisect/versions.h"

namespace kbench::client {

// GOOD and the commits of `git rev-list --reverse --first-parent GOOD..BAD`, as kRevision
// versions (label: the short id). A usage error for a malformed range; FAILED_PRECONDITION
// (exit 1) naming git's complaint when git cannot list it.
absl::StatusOr<std::vector<Version>> RevisionVersions(const std::string& range);

class RevisionBuilder {
 public:
  // `command` holds "{rev}"; `log_dir` keeps each build's output (build-<rev>.log).
  RevisionBuilder(std::string command, std::string log_dir, double timeout_seconds)
      : command_(std::move(command)), log_dir_(std::move(log_dir)), timeout_(timeout_seconds) {}

  // The file built for `revision`, building it on first use. FAILED_PRECONDITION (exit 1)
  // naming the revision and the build's log tail when the build fails or names no file.
  absl::StatusOr<std::string> PathFor(const std::string& revision);

 private:
  std::string command_;
  std::string log_dir_;
  double timeout_;
  std::map<std::string, std::string> built_;
};

}  // namespace kbench::client
