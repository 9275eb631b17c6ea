// Turns a request's bytes into its message, or into INVALID_ARGUMENT saying what is wrong with
// them. gRPC's own deserializer answers bytes that do not parse with INTERNAL and no message
// (GenericDeserialize, grpcpp/impl/codegen/proto_utils.h), and its callback handlers with
// UNIMPLEMENTED and none (server_callback_handlers.h), so every kbench.v1 handler receives its
// request as bytes and parses it here (message_limits.h, stream_requests.h).
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

namespace kbench::api {

// OK with *request parsed from `raw`, else INVALID_ARGUMENT naming the defect
// (wire_diagnosis.h), never an empty message.
grpc::Status ParseRequest(const grpc::ByteBuffer& raw, google::protobuf::Message* request);

}  // namespace kbench::api
