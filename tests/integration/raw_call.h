// Calls a kbench.v1 method with raw request bytes (gRPC's generic stub), so that a test can send
// what no typed stub would serialize: truncated, mistyped or otherwise malformed messages.
#pragma once

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <string>

namespace kbench::testing {

// One call of `method_path` ("/kbench.v1.KbenchService/GetJob") with `bytes` as its request,
// bounded by `timeout`; returns its status, and the first reply's bytes in *first_reply when it
// is given. A stream is read to its end (or the timeout).
grpc::Status RawCall(grpc::GenericStub& stub, const std::string& method_path,
                     const std::string& bytes, std::chrono::milliseconds timeout,
                     std::string* first_reply = nullptr);

}  // namespace kbench::testing
