// Submit-time checks of users' own kernels (issue 10, items 3, 4 and 6): the code's size, form
// and (for binaries) architecture, the entry name, the compiler options, and the launch
// configuration parsed and evaluated for the job's shape and params. Plain C++: kbenchd never
// compiles or loads user code, the executor does.
#pragma once

#include "absl/status/status.h"
#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"

namespace kbench::api {

// Checks spec.user_kernels for `device` and fills in defaults (name "@user", a user variant
// listed in spec.variants, a compile job's arch from the device). INVALID_ARGUMENT naming the
// field for bad input (sizes included: see kernels/user_kernel_rules.h), FAILED_PRECONDITION
// for a job the device cannot run (user kernels on the cpu device).
// Runs after the operation is known and the shape is set; before the variants are validated.
absl::Status ValidateUserKernels(const v1::DeviceInfo& device, v1::JobSpec* spec);

// Checks a kernel to register as a named variant of `op` (registered_variants.h): its name
// ("@" then letters, digits, '_', '-', '.'), code, entry, options and launch expressions (at
// the operation's default shape). Its architecture is checked when a job lists it.
absl::Status ValidateRegisteredKernel(const kernels::Operation& op, v1::UserKernel* uk);

}  // namespace kbench::api
