// Readers, SHA-256 and the chunked artifact rows.
#include "server/store/artifact_bytes.h"

#include <openssl/evp.h>

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kbench::store {
namespace {

using internal::ScopedReset;
using internal::Statement;
using internal::Transaction;

class FileArtifactReader final : public ArtifactReader {
 public:
  explicit FileArtifactReader(std::ifstream file) : file_(std::move(file)) {}
  absl::StatusOr<std::string> Read(size_t max) override {
    std::string buffer(max, '\0');
    file_.read(buffer.data(), static_cast<std::streamsize>(max));
    buffer.resize(static_cast<size_t>(std::max<std::streamsize>(file_.gcount(), 0)));
    return buffer;
  }

 private:
  std::ifstream file_;
};

// Streams the chunks in order, checking their total size and SHA-256 against the record before
// it gives the last bytes out: a stream either ends OK with the recorded bytes, or fails.
class ChunkReader final : public ArtifactReader {
 public:
  ChunkReader(ArtifactChunks* chunks, ArtifactRecord record)
      : chunks_(chunks), record_(std::move(record)) {}

  absl::StatusOr<std::string> Read(size_t max) override {
    while (offset_ == buffer_.size()) {
      if (done_) return std::string();
      KBENCH_RETURN_IF_ERROR(Refill());
    }
    const size_t n = std::min(max, buffer_.size() - offset_);
    std::string out = buffer_.substr(offset_, n);
    offset_ += n;
    return out;
  }

 private:
  // The next chunk into the buffer. Once the recorded size is reached (or the chunks end), the
  // whole is checked before its last bytes are handed out.
  absl::Status Refill() {
    buffer_.clear();
    offset_ = 0;
    KBENCH_ASSIGN_OR_RETURN(std::optional<std::string> chunk,
                            chunks_->Chunk(record_.job_id, record_.name, next_index_++));
    if (!chunk.has_value()) return Finalize();
    size_ += static_cast<int64_t>(chunk->size());
    KBENCH_RETURN_IF_ERROR(sha_.Update(chunk->data(), chunk->size()));
    if (size_ > record_.size_bytes) return Mismatch("more bytes than its recorded size");
    buffer_ = *std::move(chunk);
    if (size_ == record_.size_bytes) {
      KBENCH_ASSIGN_OR_RETURN(std::optional<std::string> extra,
                              chunks_->Chunk(record_.job_id, record_.name, next_index_));
      if (extra.has_value() && !extra->empty()) {
        return Mismatch("more bytes than its recorded size");
      }
      return Finalize();
    }
    return absl::OkStatus();
  }

  absl::Status Finalize() {
    done_ = true;
    if (size_ != record_.size_bytes) return Mismatch("fewer bytes than its recorded size");
    KBENCH_ASSIGN_OR_RETURN(std::string sha, sha_.HexDigest());
    if (sha != record_.sha256) {
      return Mismatch(absl::StrCat("sha256 ", sha, ", recorded ", record_.sha256));
    }
    return absl::OkStatus();
  }

  absl::Status Mismatch(const std::string& what) const {
    return absl::DataLossError(absl::StrCat("artifact ", record_.name, " of job ", record_.job_id,
                                            " in the database has ", what));
  }

  ArtifactChunks* chunks_;
  const ArtifactRecord record_;
  Sha256Stream sha_;
  std::string buffer_;
  size_t offset_ = 0;
  int64_t next_index_ = 0;
  int64_t size_ = 0;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<ArtifactReader> FileReader(std::ifstream file) {
  return std::make_unique<FileArtifactReader>(std::move(file));
}

struct Sha256Stream::Context {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1;
  ~Context() { EVP_MD_CTX_free(ctx); }
};

Sha256Stream::Sha256Stream() : context_(std::make_unique<Context>()) {}
Sha256Stream::~Sha256Stream() = default;

absl::Status Sha256Stream::Update(const void* data, size_t size) {
  if (!context_->ok || EVP_DigestUpdate(context_->ctx, data, size) != 1) {
    return absl::InternalError("sha256: EVP_DigestUpdate failed");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Sha256Stream::HexDigest() {
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned int hash_size = 0;
  if (!context_->ok || EVP_DigestFinal_ex(context_->ctx, hash, &hash_size) != 1) {
    return absl::InternalError("sha256: EVP_DigestFinal_ex failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size_t{2} * hash_size);
  for (unsigned int i = 0; i < hash_size; ++i) {
    hex.push_back(kHex[hash[i] >> 4]);
    hex.push_back(kHex[hash[i] & 0xf]);
  }
  return hex;
}

absl::StatusOr<ArtifactDigest> ArtifactChunks::Write(const std::string& job_id,
                                                     const std::string& name,
                                                     const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("artifact '", name, "' source '", path, "'"));
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                          Transaction::BeginLocal(db_.get(), "store artifact chunks"));
  KBENCH_RETURN_IF_ERROR([&]() -> absl::Status {
    KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> clear,
                            db_->Prepare("DELETE FROM artifact_chunks WHERE job_id = ?1 AND "
                                         "name = ?2",
                                         "replace artifact chunks"));
    KBENCH_RETURN_IF_ERROR(clear->BindText(1, job_id));
    KBENCH_RETURN_IF_ERROR(clear->BindText(2, name));
    return clear->Run();
  }());
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Statement> insert,
                          db_->Prepare("INSERT INTO artifact_chunks (job_id, name, idx, data) "
                                       "VALUES (?1, ?2, ?3, ?4)",
                                       "store an artifact chunk"));
  ArtifactDigest digest;
  Sha256Stream sha;
  std::string chunk(kChunkBytes, '\0');
  for (int64_t index = 0;; ++index) {
    in.read(chunk.data(), static_cast<std::streamsize>(kChunkBytes));
    const size_t got = static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0));
    if (got == 0 && index > 0) break;
    if (in.bad()) return absl::DataLossError(absl::StrCat("read '", path, "'"));
    KBENCH_RETURN_IF_ERROR(sha.Update(chunk.data(), got));
    digest.size_bytes += static_cast<int64_t>(got);
    ScopedReset reset(insert.get());
    KBENCH_RETURN_IF_ERROR(insert->BindText(1, job_id));
    KBENCH_RETURN_IF_ERROR(insert->BindText(2, name));
    KBENCH_RETURN_IF_ERROR(insert->BindInt64(3, index));
    KBENCH_RETURN_IF_ERROR(insert->BindBlob(4, chunk.substr(0, got)));
    KBENCH_RETURN_IF_ERROR(insert->Run());
    if (got < kChunkBytes) break;
  }
  insert.reset();
  KBENCH_RETURN_IF_ERROR(transaction->Commit());
  KBENCH_ASSIGN_OR_RETURN(digest.sha256, sha.HexDigest());
  return digest;
}

absl::Status ArtifactChunks::Remove(const std::string& job_id, const std::string& name) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> remove,
      db_->Prepare("DELETE FROM artifact_chunks WHERE job_id = ?1 AND name = ?2",
                   "remove artifact chunks"));
  KBENCH_RETURN_IF_ERROR(remove->BindText(1, job_id));
  KBENCH_RETURN_IF_ERROR(remove->BindText(2, name));
  return remove->Run();
}

absl::StatusOr<std::optional<std::string>> ArtifactChunks::Chunk(const std::string& job_id,
                                                                 const std::string& name,
                                                                 int64_t index) {
  absl::MutexLock lock(&mu_);
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<Statement> query,
      db_->Prepare("SELECT data FROM artifact_chunks WHERE job_id = ?1 AND name = ?2 AND idx = ?3",
                   "read an artifact chunk"));
  KBENCH_RETURN_IF_ERROR(query->BindText(1, job_id));
  KBENCH_RETURN_IF_ERROR(query->BindText(2, name));
  KBENCH_RETURN_IF_ERROR(query->BindInt64(3, index));
  KBENCH_ASSIGN_OR_RETURN(bool row, query->Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(query->ColumnBlob(0));
}

std::unique_ptr<ArtifactReader> ArtifactChunks::Open(const ArtifactRecord& record) {
  return std::make_unique<ChunkReader>(this, record);
}

}  // namespace kbench::store
