// Callback-API stream reactors (stream_reactors.h).
#include "server/api/stream_reactors.h"

#include <string>
#include <utility>

namespace kbench::api {
namespace {

constexpr size_t kArtifactChunk = size_t{64} * 1024;

bool IsTerminal(const v1::WatchJobResponse& response) {
  const v1::JobState state = response.job().state();
  return state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

}  // namespace

void WatchReactor::OnJob(const absl::StatusOr<v1::Job>& job) {
  std::unique_lock<std::mutex> lock(mu_);
  if (finished_ || ending_) return;
  if (!job.ok()) {
    ending_ = job.status();
    if (!writing_) FinishOnce(lock, *ending_, /*in_hub_call=*/true);
    return;
  }
  v1::WatchJobResponse response;
  *response.mutable_job() = *job;
  viewer_form_(response.mutable_job());
  if (writing_) {
    pending_ = std::move(response);
    return;
  }
  current_ = std::move(response);
  StartWriting(lock);
}

void WatchReactor::StartWriting(std::unique_lock<std::mutex>& lock) {
  writing_ = true;
  if (IsTerminal(current_)) ending_ = absl::OkStatus();
  lock.unlock();
  // current_ is not touched again until OnWriteDone, so it is safe outside the lock.
  StartWrite(&current_);
}

void WatchReactor::OnWriteDone(bool ok) {
  std::unique_lock<std::mutex> lock(mu_);
  writing_ = false;
  if (!ok) return FinishOnce(lock, absl::CancelledError("client went away"));
  if (ending_) return FinishOnce(lock, *ending_);
  if (!pending_) return;
  current_ = std::move(*pending_);
  pending_.reset();
  StartWriting(lock);
}

void WatchReactor::OnCancel() {
  std::unique_lock<std::mutex> lock(mu_);
  if (finished_) return;
  ending_ = absl::CancelledError("client went away");
  // A write in flight completes (not ok) and finishes the stream from OnWriteDone.
  if (!writing_) FinishOnce(lock, *ending_);
}

void WatchReactor::FinishOnce(std::unique_lock<std::mutex>& lock, const absl::Status& status,
                              bool in_hub_call) {
  if (finished_) return;
  finished_ = true;
  lock.unlock();
  // Never under mu_: the hub calls OnJob with its own lock held, then takes mu_.
  if (!in_hub_call) hub_->Remove(this);
  Finish(ToGrpcStatus(status));
}

ArtifactReactor::ArtifactReactor(std::unique_ptr<store::ArtifactReader> reader,
                                 v1::ArtifactInfo info, StreamSlot slot)
    : reader_(std::move(reader)), size_(info.size_bytes()), slot_(std::move(slot)) {
  *chunk_.mutable_info() = std::move(info);
  WriteNext();
}

void ArtifactReactor::WriteNext() {
  if (!first_ && offset_ >= size_) {
    Finish(grpc::Status::OK);
    return;
  }
  absl::StatusOr<std::string> read = reader_->Read(kArtifactChunk);
  if (!read.ok()) {
    Finish(ToGrpcStatus(read.status()));
    return;
  }
  std::string buffer = *std::move(read);
  const int64_t got = static_cast<int64_t>(buffer.size());
  if (got == 0 && !first_) {
    Finish(ToGrpcStatus(absl::DataLossError("artifact is shorter than its recorded size")));
    return;
  }
  if (!first_) chunk_.clear_info();
  chunk_.set_offset(offset_);
  chunk_.set_data(std::move(buffer));
  offset_ += got;
  first_ = false;
  StartWrite(&chunk_);
}

void ArtifactReactor::OnWriteDone(bool ok) {
  if (!ok) {
    Finish(ToGrpcStatus(absl::CancelledError("client went away")));
    return;
  }
  WriteNext();
}

}  // namespace kbench::api
