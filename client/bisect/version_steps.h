// The step of kbctl bisect over real versions: an interleaved A/B of the good version with
// version k on kbenchd (one job of both where they can share one, else alternating jobs),
// building a revision first when it is one, and the paired verdict over its pairs.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "client/bisect/git_builds.h"
#include "client/bisect/search.h"
#include "client/bisect/versions.h"
#include "client/session.h"
#include "client/user_kernel_flags.h"
#include "common/stats/paired_verdict.h"
#include "kbench/v1/service.pb.h"

namespace kbench::client {

struct VersionStepsConfig {
  // The flags' spec with no variants (a shape version brings its own shape).
  v1::SubmitJobRequest base;
  // --entry, --grid, --block, ... of file and revision versions.
  UserKernelFlags launch;
  std::vector<Version> versions;
  // Set with --build: makes revision versions' files.
  std::shared_ptr<RevisionBuilder> builder;
  analysis::PairedOptions paired;
};

// A step function for Bisect over `config.versions`; `session` must outlive it.
BisectStepFunction VersionSteps(Session& session, VersionStepsConfig config);

}  // namespace kbench::client
