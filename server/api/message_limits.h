// Per-method receive limits, checked before a request is parsed (issue 24, item 4). The
// transport's cap (--max-receive-message-bytes, 40 MiB) must fit a user kernel, but only the
// upload methods carry one: every other kbench.v1 method refuses a request over
// kSmallRequestBytes with RESOURCE_EXHAUSTED naming the limit, before a byte of it is parsed or
// copied into a message. Then the request is parsed by kbench, so that a malformed one is
// refused with a reason (request_parsing.h). Authentication comes earlier still (early_auth.h).
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/method_handler.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "kbench/v1/service.grpc.pb.h"
#include "server/api/request_parsing.h"
#include "server/api/upload_gate.h"

namespace kbench::api {

// Far above any real request of a non-upload method: a ListJobs filter, a page token and a few
// names are under 2 KiB (request_limits.h caps each string at a few hundred bytes).
inline constexpr size_t kSmallRequestBytes = size_t{64} << 10;

// The largest request `method` ("GetJob") accepts; 0 for the upload methods (SubmitJob,
// AddVariant, and SubmitSweep, whose base spec may carry user kernels), which the transport's
// cap alone bounds.
size_t ReceiveLimitOf(absl::string_view method);
// The kbench.v1 unary methods, by name, in the service's order (for the table's test).
std::vector<std::string> UnaryMethods();

// The index of kbench.v1 method `method` in the generated service (its place in the proto);
// aborts on a name the service lacks, a mistake in the list below.
int MethodIndex(absl::string_view method);

// OK when request `raw` fits `method`'s limit, else RESOURCE_EXHAUSTED naming both and the
// request's largest field (read without parsing the request).
grpc::Status CheckReceiveLimit(absl::string_view method, const grpc::ByteBuffer& raw);

// Reads one request as bytes, checks its size, parses it (a malformed one is INVALID_ARGUMENT
// naming its defect) and calls `handle`; the reply is sent with the status, as a unary call's.
// An upload method's request is read only with a pass of `uploads` (upload_gate.h), held until
// the reply.
template <class Request, class Response>
grpc::Status ServeWithinLimit(
    absl::string_view method, grpc::ServerContext* context, UploadGate* uploads,
    grpc::ServerReaderWriter<Response, grpc::ByteBuffer>* stream,
    const std::function<grpc::Status(const Request*, Response*)>& handle) {
  std::optional<UploadGate::Pass> pass;
  if (ReceiveLimitOf(method) == 0) {
    absl::StatusOr<UploadGate::Pass> entered = uploads->Enter(context->deadline());
    if (!entered.ok()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(entered.status().message()));
    }
    pass.emplace(std::move(*entered));
  }
  Request request;
  {
    grpc::ByteBuffer raw;  // freed once parsed: the request holds its own copy
    if (!stream->Read(&raw)) return grpc::Status(grpc::StatusCode::INTERNAL, "no request message");
    if (grpc::Status s = CheckReceiveLimit(method, raw); !s.ok()) return s;
    if (grpc::Status s = ParseRequest(raw, &request); !s.ok()) return s;
  }
  Response response;
  const grpc::Status status = handle(&request, &response);
  if (status.ok()) stream->WriteLast(response, grpc::WriteOptions());
  return status;
}

// Mixes per-method limits into the kbench.v1 service `Base` (like gRPC's generated
// WithCallbackMethod_X): each unary method is served by a handler that reads its request as
// bytes first (gRPC's "streamed" sync handler, still on the sync thread pool), then calls the
// same virtual method as the generated handler would. A unary method missing from the list
// below is served by gRPC's handler, without a limit and refusing a malformed request with
// INTERNAL and no message; message_limits_test checks the list.
template <class Base>
class WithReceiveLimits : public Base {
 public:
  using Service = v1::KbenchService::Service;

  WithReceiveLimits() {
    Limit("ListKernels", &Service::ListKernels);
    Limit("ListDevices", &Service::ListDevices);
    Limit("ListNodes", &Service::ListNodes);
    Limit("SubmitJob", &Service::SubmitJob);
    Limit("GetJob", &Service::GetJob);
    Limit("CancelJob", &Service::CancelJob);
    Limit("DeleteJob", &Service::DeleteJob);
    Limit("ListJobs", &Service::ListJobs);
    Limit("GetUsage", &Service::GetUsage);
    Limit("SubmitSweep", &Service::SubmitSweep);
    Limit("GetSweep", &Service::GetSweep);
    Limit("CancelSweep", &Service::CancelSweep);
    Limit("ListSweeps", &Service::ListSweeps);
    Limit("DeleteSweep", &Service::DeleteSweep);
    Limit("ListHistory", &Service::ListHistory);
    Limit("GetLeaderboard", &Service::GetLeaderboard);
    Limit("AddVariant", &Service::AddVariant);
    Limit("GetVariant", &Service::GetVariant);
    Limit("ListVariants", &Service::ListVariants);
    Limit("DeleteVariant", &Service::DeleteVariant);
  }

  // The unary methods listed below, limited or not (message_limits_test compares them with the
  // service's).
  const std::deque<std::string>& listed_methods() const { return listed_; }

  // How many upload requests are read at once, and how long one waits for its turn; set before
  // the server starts.
  void LimitUploads(int passes, absl::Duration max_wait) { uploads_.Configure(passes, max_wait); }

 private:
  template <class Request, class Response>
  void Limit(const char* method,
             grpc::Status (Service::*handler)(grpc::ServerContext*, const Request*, Response*)) {
    const std::string& name = listed_.emplace_back(method);
    Service* service = this;
    UploadGate* uploads = &uploads_;
    this->MarkMethodStreamed(MethodIndex(name),
                             new grpc::internal::TemplatedBidiStreamingHandler<
                                 grpc::ServerReaderWriter<Response, grpc::ByteBuffer>, false>(
                                 [service, handler, uploads, &name](
                                     grpc::ServerContext* context,
                                     grpc::ServerReaderWriter<Response, grpc::ByteBuffer>* s) {
                                   return ServeWithinLimit<Request, Response>(
                                       name, context, uploads, s,
                                       [&](const Request* request, Response* response) {
                                         return (service->*handler)(context, request, response);
                                       });
                                 }));
  }

  std::deque<std::string> listed_;  // a deque: the handlers keep references to the names
  UploadGate uploads_;
};

}  // namespace kbench::api
