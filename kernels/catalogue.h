// The kernel catalogue: every operation, registered explicitly from one list (catalogue.cc),
// and the validation of a problem against it. No CUDA here.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/operation.h"

namespace kbench::kernels {

// All operations, in a fixed order. Built once, immutable, safe to read from any thread.
const std::vector<Operation>& Catalogue();

// nullptr when no operation has that name.
const Operation* FindOperation(const std::string& name);

// Users' own variants (issue 10) are named with a leading '@' ("@user"), so that they never
// shadow a catalogue variant; ValidateProblem accepts any dtype of the operation for them.
bool IsUserVariantName(const std::string& variant);
// The name of a job's user kernel that gives none.
inline constexpr char kDefaultUserVariantName[] = "@user";

// Checks a problem against the catalogue: known op and variant, shape rank, positive and
// non-overflowing dims, a dtype the variant supports, params in range. Fills in default params.
// Errors are INVALID_ARGUMENT naming the field and the value.
absl::Status ValidateProblem(Problem* problem);

// Bytes of device (or host) memory the problem needs: inputs, outputs and workspace.
int64_t MemoryFootprint(const Problem& problem);

}  // namespace kbench::kernels
