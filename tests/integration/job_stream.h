// A client that streams jobs at a set of kbenchd nodes while a test stops and starts the nodes
// and their store under it: each job has its own idempotency key, and a refused submit is sent
// again with that key (to the next live node) until one accepts it, so that a job is never lost
// nor submitted twice. It records every accepted job and every refusal.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "kbench/v1/service.grpc.pb.h"

namespace kbench::testing {

// The nodes a stream submits to: those alive now, by name. The test's thread adds and removes
// nodes while the stream's thread picks them; a channel picked stays valid after its removal.
class NodeDirectory {
 public:
  struct Node {
    std::string name;
    std::shared_ptr<grpc::Channel> channel;  // null when there is no node
  };

  void Add(const std::string& name, std::shared_ptr<grpc::Channel> channel);
  void Remove(const std::string& name);
  // The live nodes in turn: the `n`-th modulo their number.
  Node Pick(uint64_t n) const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> nodes_ ABSL_GUARDED_BY(mu_);
};

// A submit that came back refused (or unanswered within kCallTimeout).
struct Refusal {
  std::chrono::system_clock::time_point time;  // when the answer came
  std::string node;
  absl::Status status;
};

class JobStream {
 public:
  // Borrows `nodes`, which must outlive the stream. Every job is `spec`; keys are
  // "<key_prefix>-<n>".
  JobStream(NodeDirectory* nodes, v1::JobSpec spec, std::string key_prefix);
  // Stops the stream's thread, if started.
  ~JobStream();

  // Submits one job under a new key, sending it again after each refusal (kRetryPause later)
  // until a node accepts it or kPatience passes. The job's id, or the last refusal.
  absl::StatusOr<std::string> SubmitOne();
  // A thread that submits one job (SubmitOne) every `interval` until Stop.
  void Start(std::chrono::milliseconds interval);
  // Finishes the job being submitted, if any, and joins the thread.
  void Stop();

  std::vector<std::string> Accepted() const;
  std::vector<Refusal> Refusals() const;
  // The keys of jobs no node accepted within kPatience, each with its last refusal.
  std::vector<std::string> Abandoned() const;

  static constexpr std::chrono::seconds kCallTimeout{5};
  static constexpr std::chrono::milliseconds kRetryPause{200};
  // Longer than the chaos tests' outages (10 s), so that a job submitted during one is
  // accepted once the store is back.
  static constexpr std::chrono::seconds kPatience{30};

 private:
  NodeDirectory* nodes_;
  const v1::JobSpec spec_;
  const std::string key_prefix_;
  uint64_t next_key_ = 0;  // only the submitting thread touches it
  uint64_t next_node_ = 0;

  mutable absl::Mutex mu_;
  std::vector<std::string> accepted_ ABSL_GUARDED_BY(mu_);
  std::vector<Refusal> refusals_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> abandoned_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace kbench::testing
