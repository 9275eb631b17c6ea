// The versions kbctl bisect searches (issue 26), in order, the good one first, and the requests
// that time two of them. A version is a catalogue variant, a registered @name, a user kernel
// file, a revision built locally into such a file, or (for the cpu device, which runs no user
// kernels) a shape of one variant: "the same kernel on growing work".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/user_kernel_flags.h"
#include "kbench/v1/service.pb.h"

namespace kbench::client {

enum class VersionKind { kVariant, kFile, kRevision, kShape };

struct Version {
  VersionKind kind = VersionKind::kVariant;
  // What tables show: the name, the path, the revision or the shape.
  std::string label;
  std::string variant;         // kVariant: catalogue name or @name; kShape: the variant timed
  std::string path;            // kFile (kRevision: once built)
  std::string revision;        // kRevision: the full commit id
  std::vector<int64_t> shape;  // kShape
};

// --versions items, each: "@name" a registered variant; a path (it holds a '/' or ends in .cu,
// .cuh, .ptx, .cubin, .fatbin or .json) a user kernel file; anything else a catalogue variant.
absl::StatusOr<std::vector<Version>> ParseVersionList(const std::vector<std::string>& items);

// --shapes items: versions timing `variant` at each shape.
absl::StatusOr<std::vector<Version>> ParseShapeVersions(const std::string& variant,
                                                        const std::vector<std::string>& shapes);

// Whether two versions can be timed in one job (both variants of one spec): all but shapes.
bool ShareAJob(const Version& a, const Version& b);

// The request of one A/B job: `base` (the flags' spec, its variants left empty) timing `good`
// then `candidate`, both sharing the job. File versions become user kernels @bisect-good and
// @bisect-<index> launched as `launch` says (its --source ignored).
absl::StatusOr<v1::SubmitJobRequest> SharedRequest(const v1::SubmitJobRequest& base,
                                                   const UserKernelFlags& launch,
                                                   const Version& good, const Version& candidate,
                                                   int candidate_index);

// The request of a job timing `version` alone (a shape version).
v1::SubmitJobRequest SingleRequest(const v1::SubmitJobRequest& base, const Version& version);

}  // namespace kbench::client
