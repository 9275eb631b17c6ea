// Exit codes travel as a payload on absl::Status so that every layer can keep returning Status.
#include "client/errors.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace kbench::client {
namespace {

constexpr char kExitPayload[] = "type.kbench.dev/kbctl.exit_code";

absl::Status WithExitCode(absl::Status status, ExitCode code) {
  status.SetPayload(kExitPayload, absl::Cord(std::to_string(static_cast<int>(code))));
  return status;
}

}  // namespace

absl::Status UsageError(absl::string_view message) {
  return WithExitCode(absl::InvalidArgumentError(message), ExitCode::kUsage);
}

absl::Status CheckFailedError(absl::StatusCode code, absl::string_view message) {
  return WithExitCode(absl::Status(code, message), ExitCode::kFailed);
}

absl::Status UndecidedError(absl::string_view message) {
  return WithExitCode(absl::FailedPreconditionError(message), ExitCode::kUndecided);
}

absl::Status LocalError(absl::StatusCode code, absl::string_view message) {
  return WithExitCode(absl::Status(code, message), ExitCode::kFailed);
}

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  // grpc::StatusCode and absl::StatusCode share their numbering (both follow google.rpc.Code).
  return WithExitCode(
      absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message()),
      ExitCode::kRpc);
}

ExitCode ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return ExitCode::kOk;
  const auto payload = status.GetPayload(kExitPayload);
  if (payload.has_value()) {
    const std::string text(*payload);
    if (text == "1") return ExitCode::kFailed;
    if (text == "2") return ExitCode::kUsage;
    if (text == "4") return ExitCode::kUndecided;
  }
  return ExitCode::kRpc;
}

std::string ErrorLine(const absl::Status& status) {
  if (ExitCodeFor(status) == ExitCode::kUsage) return absl::StrCat("kbctl: ", status.message());
  return absl::StrCat("kbctl: ", absl::StatusCodeToString(status.code()), ": ", status.message());
}

}  // namespace kbench::client
