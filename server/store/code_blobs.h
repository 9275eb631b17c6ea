// Users' kernel code kept once (issue 24): a job's spec, or a registered variant's kernel, keeps
// a large kernel's code in the code_blobs table (keyed by its sha256) and only the hash inline
// (UserKernel.code_sha256), so ten jobs of one 32 MiB registered variant store its code once.
// The stores call this under their own mutex and inside their write transactions; what they
// read back has its code filled in, so no caller above the store sees a stripped spec.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/database.h"
#include "server/store/stored_bytes.h"

namespace kbench::store::internal {

// Code up to this size stays inline: a blob row and a reference cost more than they save, and
// most hand-written kernels are this small.
constexpr int64_t kInlineCodeBytes = kCodeKeptOnceAboveBytes;

// Not thread-safe: the owning store's mutex guards it and its database.
class CodeBlobs {
 public:
  // Prepares its statements on `db` (which must outlive it, at schema version 14 or later).
  static absl::StatusOr<std::unique_ptr<CodeBlobs>> Prepare(Database* db);

  // A job's spec as it is stored, and the blobs it refers to.
  struct KeptSpec {
    std::string spec;
    std::vector<std::string> sha256s;
  };
  // Moves the code of each user kernel of `spec` (a serialized kbench.v1.JobSpec) larger than
  // kInlineCodeBytes into code_blobs (insert-if-absent; `owner` is recorded as the first
  // keeper). Returns the spec to store: `spec` unchanged when it moved nothing (or does not
  // parse: the store does not judge specs), else the spec with those kernels' code cleared and
  // code_sha256 set. Call inside the job's insert transaction, then ReferJob once the job's row
  // is in.
  absl::StatusOr<KeptSpec> KeepJobCode(const std::string& spec, const std::string& owner,
                                       int64_t now_ns);
  // Records that job `job_id` of `owner` refers to each of `sha256s`.
  absl::Status ReferJob(const std::string& job_id, const std::string& owner,
                        const std::vector<std::string>& sha256s);
  // The same for a registered variant's kernel (a serialized kbench.v1.UserKernel); the variant
  // refers to its blob by user_variants.sha256.
  absl::StatusOr<std::string> KeepKernelCode(const std::string& kernel, const std::string& owner,
                                             int64_t now_ns);

  // Fills back the code of every user kernel of `spec` (a serialized kbench.v1.JobSpec) that
  // has a code_sha256 and no code. DATA_LOSS naming the hash when its blob is gone.
  absl::Status FillJobCode(std::string* spec);
  // The same for a serialized kbench.v1.UserKernel.
  absl::Status FillKernelCode(std::string* kernel);

  // sha256 of `bytes`, lowercase hex: a blob's key.
  static std::string Sha256Hex(const std::string& bytes);

  // Deletes every blob that no job and no registered variant refers to any more: reference
  // counting by query, so no counter can drift. Call in the transaction that dropped the refs.
  absl::Status FreeUnreferenced();

 private:
  explicit CodeBlobs(Database* db) : db_(db) {}
  absl::Status KeepBlob(const std::string& sha256, const std::string& code,
                        const std::string& owner, int64_t now_ns);
  absl::StatusOr<std::string> ReadBlob(const std::string& sha256);

  Database* db_;
  std::unique_ptr<Statement> insert_blob_;
  std::unique_ptr<Statement> insert_ref_;
  std::unique_ptr<Statement> read_blob_;
  std::unique_ptr<Statement> free_unreferenced_;
};

}  // namespace kbench::store::internal
