// A QueuedJob for queue tests, named by what the order depends on.
#pragma once

#include <string>

#include "server/scheduler/device_queue.h"

namespace kbench::scheduler::testing {

inline QueuedJob Queued(std::string id, int32_t priority, int64_t seq, std::string owner = "") {
  QueuedJob job;
  job.id = std::move(id);
  job.priority = priority;
  job.seq = seq;
  job.owner = std::move(owner);
  return job;
}

}  // namespace kbench::scheduler::testing
