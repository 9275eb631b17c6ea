// Receiving an artifact from GetArtifact's stream: its bytes are checked against the size and
// sha256 that the first chunk announces, and written to a file only once they match.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "client/session.h"
#include "kbench/v1/service.pb.h"

namespace kbench::client {

class Sha256Hasher;  // OpenSSL's EVP context, kept out of this header.

// Checks a stream of chunks: the first carries ArtifactInfo, offsets are contiguous, and at the
// end the byte count and SHA-256 match the info. Not thread-safe.
class ArtifactVerifier {
 public:
  ArtifactVerifier(std::string job_id, std::string name);
  ~ArtifactVerifier();

  // Checks the chunk's place in the stream and hashes its bytes.
  absl::Status Add(const v1::GetArtifactResponse& chunk);
  // After the last chunk: DATA_LOSS (exit code 1) when the size or sha256 differ from the info.
  absl::Status Finish();

  const v1::ArtifactInfo& info() const { return info_; }
  int64_t received() const { return received_; }
  // Lower-case hex SHA-256 of the bytes received; valid after Finish().
  const std::string& sha256() const { return sha256_; }

 private:
  std::string job_id_;
  std::string name_;
  bool has_info_ = false;
  v1::ArtifactInfo info_;
  int64_t received_ = 0;
  std::string sha256_;
  std::unique_ptr<Sha256Hasher> hash_;
};

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(const std::string& data);

// A name kbctl may turn into a file: not empty, no leading dot (".bashrc", ".."), no path
// separator ('/' or '\\') and no NUL. The name comes from the server, which must not choose
// where on the user's disk kbctl writes. INVALID_ARGUMENT (exit code 1) otherwise.
absl::Status CheckArtifactName(const std::string& name);

// Streams the artifact `name` of job `job_id` into `path` ("-" for stdout), verified: a file is
// written as PATH.part and renamed only when size and sha256 match; stdout gets the bytes only
// after they matched. Refuses a name CheckArtifactName refuses before anything is written or
// sent. Returns the artifact's info.
absl::StatusOr<v1::ArtifactInfo> DownloadArtifact(Session& session, const std::string& job_id,
                                                  const std::string& name, const std::string& path);

}  // namespace kbench::client
