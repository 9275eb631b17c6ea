// The CUDA DeviceBackend with runner options (tests substitute variants); MakeCudaBackend(ordinal)
// in server/executor/backend.h is this with the defaults.
#pragma once

#include <memory>

#include "server/executor/backend.h"
#include "server/executor/cuda/cuda_runner.h"

namespace kbench::executor::cuda {

std::unique_ptr<DeviceBackend> MakeCudaBackend(int ordinal, CudaRunnerOptions options);

}  // namespace kbench::executor::cuda
