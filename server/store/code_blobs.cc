// CodeBlobs on SQLite or PostgreSQL: the code_blobs and job_code_refs tables of migration 14.
#include "server/store/code_blobs.h"

#include <openssl/sha.h>

#include <array>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kbench/v1/types.pb.h"
#include "kbench/v1/userkernels.pb.h"

namespace kbench::store::internal {
namespace {

bool Large(const v1::UserKernel& kernel) {
  return static_cast<int64_t>(kernel.code().size()) > kInlineCodeBytes;
}

bool Stripped(const v1::UserKernel& kernel) {
  return kernel.code().empty() && !kernel.code_sha256().empty();
}

}  // namespace

std::string CodeBlobs::Sha256Hex(const std::string& bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

absl::StatusOr<std::unique_ptr<CodeBlobs>> CodeBlobs::Prepare(Database* db) {
  std::unique_ptr<CodeBlobs> blobs(new CodeBlobs(db));
  // Insert-if-absent: the first keeper of a code is recorded as its owner; every later one
  // only refers to it.
  KBENCH_ASSIGN_OR_RETURN(
      blobs->insert_blob_,
      db->Prepare("INSERT INTO code_blobs (sha256, code, owner, size_bytes, create_time_ns) "
                  "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (sha256) DO NOTHING",
                  "keep a kernel's code"));
  KBENCH_ASSIGN_OR_RETURN(
      blobs->insert_ref_,
      db->Prepare("INSERT INTO job_code_refs (job_id, sha256, owner) VALUES (?1, ?2, ?3) "
                  "ON CONFLICT (job_id, sha256) DO NOTHING",
                  "refer a job to a kernel's code"));
  KBENCH_ASSIGN_OR_RETURN(
      blobs->read_blob_,
      db->Prepare("SELECT code FROM code_blobs WHERE sha256 = ?1", "read a kernel's code"));
  KBENCH_ASSIGN_OR_RETURN(
      blobs->free_unreferenced_,
      db->Prepare("DELETE FROM code_blobs WHERE NOT EXISTS (SELECT 1 FROM job_code_refs r "
                  "WHERE r.sha256 = code_blobs.sha256) AND NOT EXISTS (SELECT 1 FROM "
                  "user_variants v WHERE v.sha256 = code_blobs.sha256)",
                  "free unreferenced kernel code"));
  return blobs;
}

absl::StatusOr<CodeBlobs::KeptSpec> CodeBlobs::KeepJobCode(const std::string& spec,
                                                           const std::string& owner,
                                                           int64_t now_ns) {
  KeptSpec kept;
  v1::JobSpec parsed;
  if (!parsed.ParseFromString(spec)) {
    kept.spec = spec;
    return kept;
  }
  for (v1::UserKernel& kernel : *parsed.mutable_user_kernels()) {
    if (!Large(kernel)) continue;
    const std::string sha256 = Sha256Hex(kernel.code());
    KBENCH_RETURN_IF_ERROR(KeepBlob(sha256, kernel.code(), owner, now_ns));
    kernel.set_code_sha256(sha256);
    kernel.clear_code();
    kept.sha256s.push_back(sha256);
  }
  kept.spec = kept.sha256s.empty() ? spec : parsed.SerializeAsString();
  return kept;
}

absl::Status CodeBlobs::ReferJob(const std::string& job_id, const std::string& owner,
                                 const std::vector<std::string>& sha256s) {
  for (const std::string& sha256 : sha256s) {
    ScopedReset reset(insert_ref_.get());
    KBENCH_RETURN_IF_ERROR(insert_ref_->BindText(1, job_id));
    KBENCH_RETURN_IF_ERROR(insert_ref_->BindText(2, sha256));
    KBENCH_RETURN_IF_ERROR(insert_ref_->BindText(3, owner));
    KBENCH_RETURN_IF_ERROR(insert_ref_->Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> CodeBlobs::KeepKernelCode(const std::string& kernel,
                                                      const std::string& owner, int64_t now_ns) {
  v1::UserKernel parsed;
  if (!parsed.ParseFromString(kernel) || !Large(parsed)) return kernel;
  const std::string sha256 = Sha256Hex(parsed.code());
  KBENCH_RETURN_IF_ERROR(KeepBlob(sha256, parsed.code(), owner, now_ns));
  parsed.set_code_sha256(sha256);
  parsed.clear_code();
  return parsed.SerializeAsString();
}

absl::Status CodeBlobs::FillJobCode(std::string* spec) {
  v1::JobSpec parsed;
  if (!parsed.ParseFromString(*spec)) return absl::OkStatus();
  bool filled = false;
  for (v1::UserKernel& kernel : *parsed.mutable_user_kernels()) {
    if (!Stripped(kernel)) continue;
    KBENCH_ASSIGN_OR_RETURN(*kernel.mutable_code(), ReadBlob(kernel.code_sha256()));
    filled = true;
  }
  if (filled) *spec = parsed.SerializeAsString();
  return absl::OkStatus();
}

absl::Status CodeBlobs::FillKernelCode(std::string* kernel) {
  v1::UserKernel parsed;
  if (!parsed.ParseFromString(*kernel) || !Stripped(parsed)) return absl::OkStatus();
  KBENCH_ASSIGN_OR_RETURN(*parsed.mutable_code(), ReadBlob(parsed.code_sha256()));
  *kernel = parsed.SerializeAsString();
  return absl::OkStatus();
}

absl::Status CodeBlobs::FreeUnreferenced() {
  ScopedReset reset(free_unreferenced_.get());
  return free_unreferenced_->Run();
}

absl::Status CodeBlobs::KeepBlob(const std::string& sha256, const std::string& code,
                                 const std::string& owner, int64_t now_ns) {
  ScopedReset reset(insert_blob_.get());
  KBENCH_RETURN_IF_ERROR(insert_blob_->BindText(1, sha256));
  KBENCH_RETURN_IF_ERROR(insert_blob_->BindBlob(2, code));
  KBENCH_RETURN_IF_ERROR(insert_blob_->BindText(3, owner));
  KBENCH_RETURN_IF_ERROR(insert_blob_->BindInt64(4, static_cast<int64_t>(code.size())));
  KBENCH_RETURN_IF_ERROR(insert_blob_->BindInt64(5, now_ns));
  return insert_blob_->Run();
}

absl::StatusOr<std::string> CodeBlobs::ReadBlob(const std::string& sha256) {
  ScopedReset reset(read_blob_.get());
  KBENCH_RETURN_IF_ERROR(read_blob_->BindText(1, sha256));
  KBENCH_ASSIGN_OR_RETURN(const bool row, read_blob_->Step());
  if (!row) {
    return absl::DataLossError(absl::StrCat("kernel code ", sha256.substr(0, 64),
                                            " is referred to but not in ", db_->path(),
                                            "'s code_blobs"));
  }
  return read_blob_->ColumnBlob(0);
}

}  // namespace kbench::store::internal
