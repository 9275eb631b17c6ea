// The one way kbench's server interceptors are made (call_counting.h, rpc_observer.h,
// call_identity.h): for kbench.v1's calls only. Health and reflection pass by untouched: a
// health watch stays open until the server stops, and Kubernetes' probes send no token.
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <functional>
#include <memory>

namespace kbench::api {

// Makes the interceptor of one kbench.v1 call; gRPC owns it and ends it with the call.
using MakeCallInterceptor =
    std::function<grpc::experimental::Interceptor*(grpc::experimental::ServerRpcInfo* info)>;

// For ServerBuilder::experimental().SetInterceptorCreators.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> ForKbenchCalls(
    MakeCallInterceptor make);

}  // namespace kbench::api
