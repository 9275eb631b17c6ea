// The flags that bring a user's own kernel (issue 10) into bench, compare and compile:
// --source FILE --entry NAME --grid EXPR --block EXPR [--smem EXPR] [--option OPT ...]
// [--name @NAME] [--form cuda|ptx|cubin|triton] [--cluster X,Y,Z]; and their translation into a
// UserKernel. The form comes from the file's extension (.cu, .ptx, .cubin/.fatbin, .json for a
// Triton tool's output) unless --form says.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

struct UserKernelFlags {
  std::string source;
  std::string entry;
  std::vector<std::string> grid;  // comma-separated expressions, or repeated
  std::vector<std::string> block;
  std::string smem;
  std::vector<std::string> options;
  std::string name;
  std::string form;
  std::string cluster;
  std::string arch;  // compile only
  bool given() const { return !source.empty(); }
};

// Adds the flags to `app`; `compile` adds --arch and makes --source and --entry required.
void AddUserKernelFlags(CLI::App* app, UserKernelFlags* flags, bool compile);

// Reads --source and builds the kernel. INVALID_ARGUMENT (a usage error) naming the flag for an
// unreadable file, an unknown extension, a malformed Triton metadata file or bad --cluster.
absl::StatusOr<v1::UserKernel> BuildUserKernel(const UserKernelFlags& flags);

// Splits "a,b" grid/block flags into expressions, respecting parentheses
// ("cdiv(rows, 4),2" -> {"cdiv(rows, 4)", "2"}).
std::vector<std::string> SplitExpressions(const std::vector<std::string>& items);

}  // namespace kbench::client
