// A reproduction bundle (`kbctl bundle JOB -o job.kbench`) as a file: a gzip'd tar of named
// members plus manifest.json, which lists every member with its size and sha256. Reading it
// verifies every checksum first, so a tampered or truncated bundle is refused naming the member.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace kbench::client {

// The manifest's "format" and "version"; a reader refuses other values.
inline constexpr char kBundleFormat[] = "kbench-bundle";
inline constexpr int kBundleVersion = 1;
inline constexpr char kBundleManifest[] = "manifest.json";

// Members by name ("job.json", "code/@user.cu", "artifacts/trace.json", ...).
using BundleMembers = std::map<std::string, std::string>;

// Writes `members` and their manifest to `path` (through PATH.part, renamed once complete).
// `job_id` and `kbench_version` are recorded in the manifest for people.
absl::Status WriteBundle(const std::string& path, const BundleMembers& members,
                         const std::string& job_id, const std::string& kbench_version);

// Reads the bundle at `path`. DATA_LOSS naming the member when a member's sha256 or size differs
// from the manifest's, a listed member is missing or an unlisted one is present; INVALID_ARGUMENT
// when the file is not a bundle (not a tar, no manifest, another format or version).
absl::StatusOr<BundleMembers> ReadBundle(const std::string& path);

}  // namespace kbench::client
