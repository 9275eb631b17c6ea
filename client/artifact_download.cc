// Verified artifact downloads (SHA-256 from OpenSSL).
#include "client/artifact_download.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "client/errors.h"
#include "common/status_macros.h"

namespace kbench::client {

class Sha256Hasher {
 public:
  Sha256Hasher() { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
  ~Sha256Hasher() { EVP_MD_CTX_free(ctx_); }
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(const std::string& data) { EVP_DigestUpdate(ctx_, data.data(), data.size()); }
  std::string HexDigest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(ctx_, digest, &size);
    return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), size));
  }

 private:
  EVP_MD_CTX* ctx_ = EVP_MD_CTX_new();
};

ArtifactVerifier::ArtifactVerifier(std::string job_id, std::string name)
    : job_id_(std::move(job_id)), name_(std::move(name)), hash_(std::make_unique<Sha256Hasher>()) {}

ArtifactVerifier::~ArtifactVerifier() = default;

absl::Status ArtifactVerifier::Add(const v1::GetArtifactResponse& chunk) {
  const std::string what = absl::StrCat("artifact \"", name_, "\" of job ", job_id_);
  if (!has_info_) {
    if (!chunk.has_info()) {
      return CheckFailedError(absl::StatusCode::kDataLoss,
                              absl::StrCat(what, ": the first chunk carries no size and sha256"));
    }
    info_ = chunk.info();
    has_info_ = true;
  }
  if (chunk.offset() != received_) {
    return CheckFailedError(
        absl::StatusCode::kDataLoss,
        absl::StrCat(what, ": chunk at offset ", chunk.offset(), " after ", received_, " bytes"));
  }
  hash_->Update(chunk.data());
  received_ += static_cast<int64_t>(chunk.data().size());
  if (received_ > info_.size_bytes()) {
    return CheckFailedError(absl::StatusCode::kDataLoss,
                            absl::StrCat(what, ": received ", received_,
                                         " bytes, more than the announced ", info_.size_bytes()));
  }
  return absl::OkStatus();
}

absl::Status ArtifactVerifier::Finish() {
  const std::string what = absl::StrCat("artifact \"", name_, "\" of job ", job_id_);
  if (!has_info_) {
    return CheckFailedError(absl::StatusCode::kDataLoss,
                            absl::StrCat(what, ": the stream ended without any chunk"));
  }
  sha256_ = hash_->HexDigest();
  if (received_ != info_.size_bytes()) {
    return CheckFailedError(
        absl::StatusCode::kDataLoss,
        absl::StrCat(what, ": received ", received_, " bytes of ", info_.size_bytes()));
  }
  if (sha256_ != absl::AsciiStrToLower(info_.sha256())) {
    return CheckFailedError(
        absl::StatusCode::kDataLoss,
        absl::StrCat(what, ": sha256 mismatch: the server announced ", info_.sha256(), ", the ",
                     received_, " bytes received hash to ", sha256_));
  }
  return absl::OkStatus();
}

std::string Sha256Hex(const std::string& data) {
  Sha256Hasher hash;
  hash.Update(data);
  return hash.HexDigest();
}

absl::Status CheckArtifactName(const std::string& name) {
  if (name.empty()) {
    return CheckFailedError(absl::StatusCode::kInvalidArgument, "artifact name is empty");
  }
  const bool hidden = name.front() == '.';
  const bool separator = name.find_first_of(std::string("/\\\0", 3)) != std::string::npos;
  if (!hidden && !separator) return absl::OkStatus();
  return CheckFailedError(
      absl::StatusCode::kInvalidArgument,
      absl::StrCat("artifact name '", absl::CHexEscape(name.substr(0, 64)), "' ",
                   hidden ? "starts with a dot" : "contains a path separator",
                   "; refusing to write it (a server must not choose where kbctl writes)"));
}

absl::StatusOr<v1::ArtifactInfo> DownloadArtifact(Session& session, const std::string& job_id,
                                                  const std::string& name,
                                                  const std::string& path) {
  KBENCH_RETURN_IF_ERROR(CheckArtifactName(name));
  ArtifactVerifier verifier(job_id, name);
  const bool to_stdout = path == "-";
  const std::string part = path + ".part";
  std::string buffer;
  std::ofstream file;
  if (!to_stdout) {
    file.open(part, std::ios::binary | std::ios::trunc);
    if (!file) {
      return LocalError(absl::StatusCode::kPermissionDenied,
                        absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
    }
  }
  absl::Status s = session.connection().GetArtifact(
      job_id, name, [&](const v1::GetArtifactResponse& chunk) -> absl::Status {
        KBENCH_RETURN_IF_ERROR(verifier.Add(chunk));
        if (to_stdout) {
          buffer += chunk.data();
        } else if (!file.write(chunk.data().data(),
                               static_cast<std::streamsize>(chunk.data().size()))) {
          return LocalError(absl::StatusCode::kResourceExhausted,
                            absl::StrCat("cannot write ", part, ": ", std::strerror(errno)));
        }
        return absl::OkStatus();
      });
  if (s.ok()) s = verifier.Finish();
  if (!to_stdout) {
    file.close();
    if (s.ok() && !file) {
      s = LocalError(absl::StatusCode::kResourceExhausted, absl::StrCat("cannot write ", part));
    }
    if (s.ok() && std::rename(part.c_str(), path.c_str()) != 0) {
      s = LocalError(
          absl::StatusCode::kPermissionDenied,
          absl::StrCat("cannot rename ", part, " to ", path, ": ", std::strerror(errno)));
    }
    if (!s.ok()) std::remove(part.c_str());
  }
  if (!s.ok()) return s;
  if (to_stdout) session.out() << buffer << std::flush;
  return verifier.info();
}

}  // namespace kbench::client
