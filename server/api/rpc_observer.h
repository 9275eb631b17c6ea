// Every kbench.v1 call observed once, in one place (issue 27, item 2: a thin API): its duration
// from when gRPC hands it to kbench until its status is sent, counted in the RPC metric under
// its method and status code, and a failure other than NOT_FOUND or INVALID_ARGUMENT logged at
// debug level. Handlers only map their absl::Status to gRPC's (status_mapping.h); a stream is
// observed over its whole life, a handler's early return like its last.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "server/metrics/metrics.h"

namespace kbench::api {

// "SubmitJob" from "/kbench.v1.Kbench/SubmitJob".
std::string ShortMethodName(absl::string_view path);

// For ServerBuilder::experimental().SetInterceptorCreators. `metrics` must outlive the server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> ObserveCallsInto(
    metrics::Metrics* metrics);

}  // namespace kbench::api
