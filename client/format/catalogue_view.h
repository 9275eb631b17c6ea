// Human-readable views of what a kbenchd offers: the kernel catalogue and the devices.
#pragma once

#include <string>

#include "kbench/v1/service.pb.h"

namespace kbench::client {

// One line per operation: name, variants, dims, default shape, dtypes.
std::string RenderKernelsTable(const v1::ListKernelsResponse& kernels);
// One operation in full: description, dims, dtypes, cost model, parameters, variants with
// what each one teaches.
std::string RenderKernel(const v1::KernelInfo& kernel);
// One line per device: id, kind, name, state, units, memory, measured copy bandwidth, peaks,
// queue depth, executor restarts.
std::string RenderDevicesTable(const v1::ListDevicesResponse& devices);

}  // namespace kbench::client
