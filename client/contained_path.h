// A path that a file names relative to itself (a Triton kernel.json's cubin): confined to that
// file's directory, so that a downloaded or shared metadata file cannot make kbctl read (and
// submit to a server) any other file of the user's, such as ~/.ssh/id_ed25519.
#pragma once

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace kbench::client {

// `name` resolved against `dir` when it is relative and stays inside `dir` once both are made
// canonical (std::filesystem::weakly_canonical: symlinks resolved, "." and ".." folded), so
// "../x", "/etc/passwd" and a symlink whose target lies outside are refused. `what` names the
// source of `name` in the usage error (INVALID_ARGUMENT) that says why.
absl::StatusOr<std::filesystem::path> PathInside(const std::filesystem::path& dir,
                                                 const std::string& name, const std::string& what);

}  // namespace kbench::client
