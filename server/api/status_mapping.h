// The one translation from absl::Status to grpc::Status at the service's edge.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace kbench::api {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace kbench::api
