// Size caps on every string a client sends and on a whole spec, checked before anything is
// looked up, stored or quoted back: a request can neither bloat the store and every reply that
// echoes it, nor push an error message past the client's metadata limit.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/service.pb.h"

namespace kbench::api {

// Longest names (kernel, variant, device, param), ids and owners; far above any real one.
inline constexpr size_t kMaxNameBytes = 128;
inline constexpr size_t kMaxIdempotencyKeyBytes = 128;
inline constexpr size_t kMaxPageTokenBytes = 256;
inline constexpr int kMaxVariants = 32;
inline constexpr int kMaxShapeRank = 8;
inline constexpr int kMaxParams = 32;
// User kernels in one job (issue 10): a few to compare against the catalogue's variants.
inline constexpr int kMaxUserKernels = 4;
// A serialized JobSpec without its user kernels' code; a real one is under 1 KiB.
inline constexpr size_t kMaxSpecBytes = size_t{16} * 1024;

// At most a short prefix of a client's value, quoted, for an error message:
// 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' (1048576 bytes).
std::string QuotePrefix(absl::string_view value);

// INVALID_ARGUMENT naming the field (and a short prefix of the value) when `value` is longer
// than `max_bytes`.
absl::Status CheckLength(absl::string_view field, absl::string_view value, size_t max_bytes);

// Every string of the request within its cap, and the spec within kMaxSpecBytes.
absl::Status CheckRequestSize(const v1::SubmitJobRequest& request);
absl::Status CheckRequestSize(const v1::ListJobsRequest& request);
absl::Status CheckRequestSize(const v1::GetArtifactRequest& request);
absl::Status CheckRequestSize(const v1::ListHistoryRequest& request);
absl::Status CheckRequestSize(const v1::GetLeaderboardRequest& request);
// Registered variants: the names, and a kernel's fields but its code within kMaxSpecBytes (its
// code has its own limits, checked at validation).
absl::Status CheckRequestSize(const v1::AddVariantRequest& request);
absl::Status CheckRequestSize(const v1::GetVariantRequest& request);
absl::Status CheckRequestSize(const v1::ListVariantsRequest& request);
absl::Status CheckRequestSize(const v1::DeleteVariantRequest& request);
// GetJob, WatchJob, CancelJob.
absl::Status CheckJobId(absl::string_view job_id);

}  // namespace kbench::api
