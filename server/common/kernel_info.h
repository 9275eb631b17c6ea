// The catalogue's description of an operation as the API's KernelInfo: what ListKernels
// answers, and what kbctl's tests serve from their fake server so that it matches the daemon.
#pragma once

#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"

namespace kbench {

// Dims, default shape, cost model, parameters and variants (device kind and dtypes of each);
// the kernel's dtypes are the union of its variants', in enum order.
v1::KernelInfo KernelInfoOf(const kernels::Operation& op);

}  // namespace kbench
