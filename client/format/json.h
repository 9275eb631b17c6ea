// kbctl's -o json output: protobuf's canonical JSON mapping with the .proto field names, enum
// value names and zero-valued fields printed, so scripts see every field of the API.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/struct.pb.h"

namespace kbench::client {

// One JSON document (indented), ending in '\n'; JsonStringToMessage reads it back.
absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);
// The message as a JSON value, to be placed inside a google.protobuf.Struct (lists of messages
// that the API has no message for, e.g. a job's artifacts).
absl::StatusOr<google::protobuf::Value> ToJsonValue(const google::protobuf::Message& message);
// Parses JSON produced by ToJson (or any proto3 JSON) into `message`.
absl::Status FromJson(const std::string& json, google::protobuf::Message* message);

}  // namespace kbench::client
