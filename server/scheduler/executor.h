// What the scheduler needs from an executor: start one per device, send it a job, read what it
// answers until a deadline, cancel, kill. The real one is a kbench-executor child process
// (executor_supervisor.h); tests inject a scripted one, so that hang deadlines, start failures,
// back-off and cancel races are tested without fork or sleep.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kbench/v1/types.pb.h"
#include "server/common/job_types.h"

namespace kbench::scheduler {

// One thing an executor said (or did) while running a job.
struct ExecutorEvent {
  enum class Type {
    kIdle,      // nothing before the deadline given to Next
    kProgress,  // `progress` of the job
    kOutcome,   // `outcome` of the job: it is over, the executor is still usable
    kLost,      // the executor is gone (`failure`, `message` say how); Bury() it
  };
  Type type = Type::kIdle;
  v1::Progress progress;
  internal::v1::JobOutcome outcome;
  ExecutorFailure failure = ExecutorFailure::kExit;
  std::string message;
};

// One started executor, ready. Send/Next/Bury are called by one thread (the device's worker);
// Cancel and Kill by any thread.
class Executor {
 public:
  // Asks the executor to stop, then makes sure it is gone.
  virtual ~Executor() = default;
  // What the executor reported about its device when it became ready.
  virtual const v1::DeviceInfo& info() const = 0;
  // UNAVAILABLE with how it ended when the executor is gone.
  virtual absl::Status Send(const internal::v1::RunJob& job) = 0;
  // The next event about `job_id`, waiting at most until `until` (the scheduler's clock).
  virtual ExecutorEvent Next(const std::string& job_id, absl::Time until) = 0;
  // Asks the job to stop; the executor answers with a cancelled outcome when it does.
  virtual void Cancel(const std::string& job_id) = 0;
  // Ends the executor now (SIGKILL).
  virtual void Kill() = 0;
  // After Kill or a lost event: reaps the executor and says how it ended, for a person.
  virtual std::string Bury() = 0;
};

class ExecutorLauncher {
 public:
  virtual ~ExecutorLauncher() = default;
  // Starts the executor of `device` ("cpu", "cuda:N") and waits until it is ready. UNAVAILABLE
  // with the cause when it does not come up. Called by the device's own long-lived worker
  // thread: a child's parent-death signal follows the thread that forked it.
  virtual absl::StatusOr<std::unique_ptr<Executor>> Start(const std::string& device) = 0;
  // The CUDA devices present (none on a host without a GPU).
  virtual absl::StatusOr<std::vector<v1::DeviceInfo>> Discover() = 0;
};

}  // namespace kbench::scheduler
