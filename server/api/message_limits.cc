// Per-method receive limits (see message_limits.h).
#include "server/api/message_limits.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "server/api/field_sizes.h"

namespace kbench::api {
namespace {

const google::protobuf::ServiceDescriptor& KbenchServiceDescriptor() {
  return *google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      v1::KbenchService::service_full_name());
}

// Far more fields than any real request has: the walk over a refused request stays short.
constexpr int kMaxFieldsToSize = 1000;

// "; the largest field is job_id (65540 bytes)" of request `raw` of `method`, read in place.
std::string LargestFieldOf(absl::string_view method, const grpc::ByteBuffer& raw) {
  const google::protobuf::MethodDescriptor* m =
      KbenchServiceDescriptor().FindMethodByName(std::string(method));
  if (m == nullptr) return "";
  grpc::ByteBuffer shared(raw);  // the same slices, referenced: the reader needs its own
  grpc::ProtoBufferReader reader(&shared);
  if (!reader.status().ok()) return "";
  return LargestField(FieldSizesOnTheWire(&reader, *m->input_type(), kMaxFieldsToSize), "");
}

}  // namespace

size_t ReceiveLimitOf(absl::string_view method) {
  if (method == "SubmitJob" || method == "AddVariant" || method == "SubmitSweep") return 0;
  return kSmallRequestBytes;
}

std::vector<std::string> UnaryMethods() {
  const google::protobuf::ServiceDescriptor& service = KbenchServiceDescriptor();
  std::vector<std::string> names;
  for (int i = 0; i < service.method_count(); ++i) {
    const google::protobuf::MethodDescriptor* m = service.method(i);
    if (!m->client_streaming() && !m->server_streaming()) names.push_back(m->name());
  }
  return names;
}

int MethodIndex(absl::string_view method) {
  const google::protobuf::MethodDescriptor* m =
      KbenchServiceDescriptor().FindMethodByName(std::string(method));
  if (m == nullptr) {
    std::fprintf(stderr, "kbenchd: no method kbench.v1.KbenchService.%s\n",
                 std::string(method).c_str());
    std::abort();
  }
  return m->index();
}

grpc::Status CheckReceiveLimit(absl::string_view method, const grpc::ByteBuffer& raw) {
  const size_t limit = ReceiveLimitOf(method);
  const size_t bytes = raw.Length();
  if (limit == 0 || bytes <= limit) return grpc::Status::OK;
  return grpc::Status(
      grpc::StatusCode::RESOURCE_EXHAUSTED,
      absl::StrCat(method, " request is ", bytes, " bytes, over its limit of ", limit,
                   " bytes (only SubmitJob, SubmitSweep and AddVariant take large requests)",
                   LargestFieldOf(method, raw)));
}

}  // namespace kbench::api
