// Protobuf <-> JSON for kbctl's -o json.
#include "client/format/json.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "google/protobuf/util/json_util.h"

namespace kbench::client {

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  // Scripts can rely on every field being there ("passed": false rather than absent).
  options.always_print_primitive_fields = true;
  // The names in the .proto files, which is what docs/api.md and users read.
  options.preserve_proto_field_names = true;
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!status.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot print ", message.GetTypeName(), " as JSON: ", status.ToString()));
  }
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

absl::StatusOr<google::protobuf::Value> ToJsonValue(const google::protobuf::Message& message) {
  KBENCH_ASSIGN_OR_RETURN(std::string json, ToJson(message));
  google::protobuf::Value value;
  KBENCH_RETURN_IF_ERROR(FromJson(json, &value));
  return value;
}

absl::Status FromJson(const std::string& json, google::protobuf::Message* message) {
  google::protobuf::util::JsonParseOptions options;
  const auto status = google::protobuf::util::JsonStringToMessage(json, message, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a JSON ", message->GetTypeName(), ": ", status.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace kbench::client
