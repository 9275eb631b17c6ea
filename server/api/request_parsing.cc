// Requests parsed from their bytes, malformed ones refused with a reason (request_parsing.h).
#include "server/api/request_parsing.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "server/api/status_mapping.h"
#include "server/api/wire_diagnosis.h"

namespace kbench::api {
namespace {

// Only after protobuf refused them: one copy of a request that failed already.
std::string BytesOf(const grpc::ByteBuffer& raw) {
  grpc::Slice whole;
  if (!raw.DumpToSingleSlice(&whole).ok()) return "";
  return std::string(reinterpret_cast<const char*>(whole.begin()), whole.size());
}

}  // namespace

grpc::Status ParseRequest(const grpc::ByteBuffer& raw, google::protobuf::Message* request) {
  {
    grpc::ByteBuffer shared(raw);  // the same slices, referenced: the reader needs its own
    grpc::ProtoBufferReader reader(&shared);
    if (!reader.status().ok()) return reader.status();
    if (request->ParseFromZeroCopyStream(&reader)) return grpc::Status::OK;
  }
  const std::string bytes = BytesOf(raw);
  const std::string& type = request->GetDescriptor()->full_name();
  absl::Status defect = DiagnoseWireFormat(bytes, *request->GetDescriptor());
  if (defect.ok()) {
    // Protobuf refused what the walk accepts: still the request's fault, still said so.
    defect = absl::InvalidArgumentError(absl::StrCat("request ", type, " (", bytes.size(),
                                                     " bytes) is not a valid protobuf message"));
  }
  return ToGrpcStatus(defect);
}

}  // namespace kbench::api
