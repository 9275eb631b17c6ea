// The server-streaming kbench.v1 methods (WatchJob, GetArtifact: gRPC's callback API) take
// their request as bytes and parse it themselves (request_parsing.h). gRPC 1.51's
// CallbackServerStreamingHandler answers a request it cannot deserialize with UNIMPLEMENTED
// and no message: a failed Deserialize leaves it without a reactor, and it substitutes an
// UnimplementedWriteReactor (grpcpp/impl/codegen/server_callback_handlers.h). Each request is
// held to its method's receive limit first (message_limits.h).
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_callback.h>

#include <string>
#include <vector>

#include "kbench/v1/service.grpc.pb.h"
#include "server/api/message_limits.h"
#include "server/api/request_parsing.h"
#include "server/api/stream_reactors.h"

namespace kbench::api {

// Mixes raw-request handlers into `Base`, a kbench.v1 service whose WatchJob and GetArtifact
// are callback methods (gRPC's WithCallbackMethod_X): each parses its request, then calls the
// same virtual method as gRPC's handler would; a refused request ends the stream with the
// reason before any of the method's code runs.
template <class Base>
class WithParsedStreamRequests : public Base {
 public:
  WithParsedStreamRequests() {
    Receive<v1::WatchJobRequest, v1::WatchJobResponse>("WatchJob", &Base::WatchJob);
    Receive<v1::GetArtifactRequest, v1::GetArtifactResponse>("GetArtifact", &Base::GetArtifact);
  }

  // The streaming methods listed above (message_limits_test compares them with the service's).
  const std::vector<std::string>& listed_streams() const { return listed_; }

 private:
  template <class Request, class Response>
  void Receive(const char* method,
               grpc::ServerWriteReactor<Response>* (Base::*handler)(grpc::CallbackServerContext*,
                                                                    const Request*)) {
    listed_.emplace_back(method);
    this->MarkMethodRawCallback(
        MethodIndex(method),
        new grpc::internal::CallbackServerStreamingHandler<grpc::ByteBuffer, Response>(
            [this, method, handler](grpc::CallbackServerContext* context,
                                    const grpc::ByteBuffer* raw) {
              Request request;
              grpc::Status received = CheckReceiveLimit(method, *raw);
              if (received.ok()) received = ParseRequest(*raw, &request);
              if (!received.ok()) {
                return static_cast<grpc::ServerWriteReactor<Response>*>(
                    new RefusedStream<Response>(received));
              }
              // The handlers read their request before they return (kbench_service.cc).
              return (this->*handler)(context, &request);
            }));
  }

  std::vector<std::string> listed_;
};

// kbench.v1's service with its streams on gRPC's callback API, their requests parsed by kbench.
using StreamingBase = WithParsedStreamRequests<v1::KbenchService::WithCallbackMethod_WatchJob<
    v1::KbenchService::WithCallbackMethod_GetArtifact<v1::KbenchService::Service>>>;

}  // namespace kbench::api
