// Parsers for kbctl's argument values. Each error names the flag and the value it rejected,
// and is a usage error (exit code 2).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

// "4096x4096", "1024x1024x512" (also 'X' or ',' between dimensions): 1 to 8 positive dimensions
// whose product fits in int64.
absl::StatusOr<std::vector<int64_t>> ParseShape(const std::string& flag, const std::string& text);
// "4096x4096": the inverse of ParseShape.
std::string ShapeString(const std::vector<int64_t>& shape);

// "f32", "f16", "bf16", "tf32" (case-insensitive; "DTYPE_F32" too).
absl::StatusOr<v1::DType> ParseDType(const std::string& flag, const std::string& text);
// "cold", "hot", "graph".
absl::StatusOr<v1::MeasureMode> ParseMode(const std::string& flag, const std::string& text);
// "queued", "running", "succeeded", "failed", "cancelled".
absl::StatusOr<v1::JobState> ParseJobState(const std::string& flag, const std::string& text);
// "cpu", "cuda:N" or "cuda:any"; in a fleet also "NODE/DEVICE" (one node's device) and
// "KIND:any" (any node's device of a kind or GPU model: "cpu:any", "h100:any"). Returned in
// lower case but for the node's name; the daemon checks that the device exists.
absl::StatusOr<std::string> ParseDevice(const std::string& flag, const std::string& text);

// Lower-case short names used in tables and accepted on the command line: "f32", "cold",
// "succeeded", "benchmark", "cuda".
std::string DTypeName(v1::DType dtype);
std::string ModeName(v1::MeasureMode mode);
std::string StateName(v1::JobState state);
std::string KindName(v1::JobKind kind);
std::string DeviceKindName(v1::DeviceKind kind);
std::string DeviceStateName(v1::DeviceState state);

// "name=value" pairs with int64 values; a name given twice is an error.
absl::StatusOr<std::map<std::string, int64_t>> ParseParams(const std::string& flag,
                                                           const std::vector<std::string>& items);
// Comma-separated (or repeated) names, trimmed, without empties or duplicates.
absl::StatusOr<std::vector<std::string>> ParseNameList(const std::string& flag,
                                                       const std::vector<std::string>& items);

absl::StatusOr<int64_t> ParseInt(const std::string& flag, const std::string& text, int64_t min,
                                 int64_t max);
absl::StatusOr<uint64_t> ParseUint64(const std::string& flag, const std::string& text);
// Seconds as a plain number ("1.5") or an absl duration ("1500ms", "2m"); must be > 0 unless
// allow_zero.
absl::StatusOr<double> ParseSeconds(const std::string& flag, const std::string& text,
                                    bool allow_zero);
absl::StatusOr<absl::Duration> ParseDuration(const std::string& flag, const std::string& text);
// A fraction in (0, 1): "0.005" or "0.5%".
absl::StatusOr<double> ParseFraction(const std::string& flag, const std::string& text);
// A percentage in (0, 100]: "3", "2.5" or "2.5%".
absl::StatusOr<double> ParsePercent(const std::string& flag, const std::string& text);

}  // namespace kbench::client
