// The server-streaming RPCs on gRPC's callback API: an open stream holds a reactor (a few
// hundred bytes and its last message), not a thread. WatchJob's reactor is fed by the WatchHub;
// GetArtifact's reads its next chunk when the previous write completes.
#pragma once

#include <grpcpp/support/server_callback.h>

#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "kbench/v1/service.pb.h"
#include "server/api/status_mapping.h"
#include "server/api/stream_limiter.h"
#include "server/api/watch_hub.h"
#include "server/store/artifact_bytes.h"

namespace kbench::api {

// A stream refused before it started (bad request, limit reached, unknown job).
template <typename Response>
class RefusedStream final : public grpc::ServerWriteReactor<Response> {
 public:
  explicit RefusedStream(const grpc::Status& status) { this->Finish(status); }
  explicit RefusedStream(const absl::Status& status) : RefusedStream(ToGrpcStatus(status)) {}
  void OnDone() override { delete this; }
};

// Writes each snapshot the hub delivers; while a write is in flight only the newest snapshot
// waits, so a slow client gets the latest state, never a backlog. Finishes after writing a
// terminal state. Deletes itself when gRPC is done with it.
class WatchReactor final : public grpc::ServerWriteReactor<v1::WatchJobResponse>,
                           public JobWatcher {
 public:
  // `viewer_form` turns the hub's job into what this watcher may see (artifact_access.h).
  using ViewerForm = std::function<void(v1::Job*)>;
  WatchReactor(WatchHub* hub, StreamSlot slot, ViewerForm viewer_form)
      : hub_(hub), slot_(std::move(slot)), viewer_form_(std::move(viewer_form)) {}

  void OnJob(const absl::StatusOr<v1::Job>& job) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override { delete this; }

 private:
  // Starts writing `current_` (mu_ held on entry, released on return).
  void StartWriting(std::unique_lock<std::mutex>& lock) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Finishes the RPC once (mu_ held on entry, released on return). `in_hub_call` when called
  // from OnJob: the hub holds its lock and drops the watcher itself.
  void FinishOnce(std::unique_lock<std::mutex>& lock, const absl::Status& status,
                  bool in_hub_call = false) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  WatchHub* const hub_;
  StreamSlot slot_;
  const ViewerForm viewer_form_;
  std::mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  // Why the stream ends, once known; applied when the write in flight completes.
  std::optional<absl::Status> ending_ ABSL_GUARDED_BY(mu_);
  v1::WatchJobResponse current_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::WatchJobResponse> pending_ ABSL_GUARDED_BY(mu_);
};

// Streams an open artifact in chunks; the first chunk carries its info. A reader's error (a
// database artifact whose bytes do not match its record) ends the stream with it.
class ArtifactReactor final : public grpc::ServerWriteReactor<v1::GetArtifactResponse> {
 public:
  ArtifactReactor(std::unique_ptr<store::ArtifactReader> reader, v1::ArtifactInfo info,
                  StreamSlot slot);

  void OnWriteDone(bool ok) override;
  void OnDone() override { delete this; }

 private:
  // Reads and writes the next chunk, or finishes at the end of the file.
  void WriteNext();

  std::unique_ptr<store::ArtifactReader> reader_;
  const int64_t size_;
  StreamSlot slot_;
  // Only one write is in flight and OnWriteDone drives the next, so no lock is needed.
  v1::GetArtifactResponse chunk_;
  int64_t offset_ = 0;
  bool first_ = true;
};

}  // namespace kbench::api
