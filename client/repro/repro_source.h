// What `kbctl repro` and `kbctl bundle` start from: a stored job with the code of its user
// kernels, read from kbenchd (GetJob leaves code out of replies, so the code comes from the
// registered variant or a --code file, checked against the recorded sha256) or from a bundle.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "client/repro/bundle_archive.h"
#include "client/session.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

struct ReproSource {
  v1::Job job;
  // Each user kernel's code by its name ("@user"); a registered variant without code here is
  // resolved again by kbenchd at submit.
  std::map<std::string, std::string> code;
};

// `--code NAME=FILE` values by kernel name.
using CodeFiles = std::map<std::string, std::string>;

// The job `job_id` from kbenchd, with every user kernel's code: from `files`, else from its
// registered variant (when `need_all_code`, as a bundle does; otherwise it is left to kbenchd).
// FAILED_PRECONDITION naming the kernel when its code is nowhere, or its sha256 differs from
// the recorded one.
absl::StatusOr<ReproSource> SourceFromServer(Session& session, const std::string& job_id,
                                             const CodeFiles& files, bool need_all_code);

// The job and code of a bundle read by ReadBundle.
absl::StatusOr<ReproSource> SourceFromBundle(const std::string& path, const BundleMembers& members);

// The bundle's members for `source`: job.json, environment.json, code/NAME, samples/VARIANT.txt
// (one seconds value per line), and `artifacts` as artifacts/NAME.
BundleMembers BundleOf(const ReproSource& source,
                       const std::map<std::string, std::string>& artifacts);

}  // namespace kbench::client
