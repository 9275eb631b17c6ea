// kbctl's exit codes and the errors that carry them from a subcommand to main().
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "grpcpp/support/status.h"

namespace kbench::client {

// Documented in `kbctl --help`; scripts depend on these values.
enum class ExitCode : int {
  kOk = 0,
  // The job FAILED or was CANCELLED, a correctness or checksum check failed, the server is not
  // SERVING, or a local file could not be written.
  kFailed = 1,
  // The command line was wrong (unknown flag, bad shape, ...): nothing was sent.
  kUsage = 2,
  // An RPC failed (server unreachable, INVALID_ARGUMENT, NOT_FOUND, ...).
  kRpc = 3,
  // The data arrived but could not decide: kbctl bisect's step stayed UNSURE at its most pairs.
  kUndecided = 4,
};

// An error in the command line; exits with kUsage.
absl::Status UsageError(absl::string_view message);
// A check that failed on data that did arrive (checksum, health); exits with kFailed.
absl::Status CheckFailedError(absl::StatusCode code, absl::string_view message);
// Measurements that cannot decide (kbctl bisect); exits with kUndecided.
absl::Status UndecidedError(absl::string_view message);
// A local I/O problem (cannot write the output file); exits with kFailed.
absl::Status LocalError(absl::StatusCode code, absl::string_view message);

// The gRPC status as an absl::Status with the same code and message; exits with kRpc.
absl::Status FromGrpc(const grpc::Status& status);

// The exit code a failed status stands for (kOk for an ok status).
ExitCode ExitCodeFor(const absl::Status& status);

// The line printed on stderr: "kbctl: <CODE>: <message>" ("kbctl: <message>" for usage errors).
std::string ErrorLine(const absl::Status& status);

}  // namespace kbench::client
