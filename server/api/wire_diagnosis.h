// Says what is wrong with bytes that protobuf refused to parse as a request. gRPC's own
// deserializer answers such a request INTERNAL with no message; this walks the wire format
// against the request type's descriptor as protobuf's parser would and names the first defect:
// a string that is not UTF-8, a field or group that ends past its message, groups or messages
// nested deeper than protobuf's limit, a tag no encoder writes.
#pragma once

#include <google/protobuf/descriptor.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kbench::api {

// Protobuf's parser refuses messages and groups nested deeper than its default recursion limit
// (io::CodedInputStream::GetDefaultRecursionLimit(), google/protobuf/io/coded_stream.h).
inline constexpr int kMaxWireDepth = 100;

// INVALID_ARGUMENT naming the first defect of `bytes` as a serialized `type`, or OK when the
// walk finds none:
//   request kbench.v1.SubmitJobRequest: field spec.kernel (2) is not valid UTF-8 at byte 2
//   request kbench.v1.SubmitJobRequest is truncated: field spec (1) ends past the message
//     (byte 120 of 96)
//   request kbench.v1.SubmitJobRequest nests groups deeper than 100: the group of field 15 at
//     byte 100 is 101 deep
// Byte positions count from the start of the request, except a string's (from the start of the
// string). Unknown fields are no defect: protobuf keeps them (proto3 included) and so do we.
// Neither is a known field sent with another wire type, which protobuf keeps as an unknown one.
absl::Status DiagnoseWireFormat(absl::string_view bytes, const google::protobuf::Descriptor& type);

}  // namespace kbench::api
