// A stream of idempotent submits to a changing set of nodes.
#include "tests/integration/job_stream.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {

void NodeDirectory::Add(const std::string& name, std::shared_ptr<grpc::Channel> channel) {
  absl::MutexLock lock(&mu_);
  nodes_[name] = std::move(channel);
}

void NodeDirectory::Remove(const std::string& name) {
  absl::MutexLock lock(&mu_);
  nodes_.erase(name);
}

NodeDirectory::Node NodeDirectory::Pick(uint64_t n) const {
  absl::MutexLock lock(&mu_);
  if (nodes_.empty()) return {};
  auto it = nodes_.begin();
  std::advance(it, n % nodes_.size());
  return {it->first, it->second};
}

JobStream::JobStream(NodeDirectory* nodes, v1::JobSpec spec, std::string key_prefix)
    : nodes_(nodes), spec_(std::move(spec)), key_prefix_(std::move(key_prefix)) {}

JobStream::~JobStream() { Stop(); }

absl::StatusOr<std::string> JobStream::SubmitOne() {
  const std::string key = absl::StrCat(key_prefix_, "-", next_key_++);
  const auto give_up = std::chrono::steady_clock::now() + kPatience;
  absl::Status refused = absl::UnavailableError("no live node to submit to");
  while (std::chrono::steady_clock::now() < give_up) {
    // Each try goes to the next node: a dead node's refusal is retried elsewhere, and the key
    // makes a node that had accepted the job answer with that same job.
    const NodeDirectory::Node node = nodes_->Pick(next_node_++);
    if (node.channel != nullptr) {
      std::unique_ptr<v1::KbenchService::Stub> stub = v1::KbenchService::NewStub(node.channel);
      absl::StatusOr<v1::Job> job = Submit(*stub, spec_, key, kCallTimeout);
      absl::MutexLock lock(&mu_);
      if (job.ok()) {
        accepted_.push_back(job->id());
        return job->id();
      }
      refused = job.status();
      refusals_.push_back({std::chrono::system_clock::now(), node.name, refused});
    }
    std::this_thread::sleep_for(kRetryPause);
  }
  absl::MutexLock lock(&mu_);
  abandoned_.push_back(absl::StrCat(key, ": ", refused.ToString()));
  return refused;
}

void JobStream::Start(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] {
    while (true) {
      // A job never accepted is among Abandoned(), which the test judges.
      SubmitOne().IgnoreError();
      absl::MutexLock lock(&mu_);
      // Sleeps the interval, or less when Stop asks.
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(interval));
      if (stopping_) return;
    }
  });
}

void JobStream::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

std::vector<std::string> JobStream::Accepted() const {
  absl::MutexLock lock(&mu_);
  return accepted_;
}

std::vector<std::string> JobStream::Abandoned() const {
  absl::MutexLock lock(&mu_);
  return abandoned_;
}

std::vector<Refusal> JobStream::Refusals() const {
  absl::MutexLock lock(&mu_);
  return refusals_;
}

}  // namespace kbench::testing
