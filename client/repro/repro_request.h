// The SubmitJob request that re-runs a stored job: its spec as submitted (fields kbenchd sets
// cleared, the code filled in), on the same device or another of the same model.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "client/repro/repro_source.h"
#include "kbench/v1/service.pb.h"

namespace kbench::client {

struct ReproOptions {
  // Empty: the device the job ran on.
  std::string device;
  // Re-use the recorded input seed instead of the spec's seed policy (0 draws a fresh one).
  bool same_seed = false;
  std::string owner;
};

absl::StatusOr<v1::SubmitJobRequest> ReproRequest(const ReproSource& source,
                                                  const ReproOptions& options);

// The device a reproduction targets: `device` when given, else the job's (a fleet's
// "node/cuda:0" kept whole).
std::string ReproDevice(const v1::Job& job, const std::string& device);

// FAILED_PRECONDITION unless `target` (from ListDevices) is the model the job's environment
// records; `any_model` allows another, saying so in the verdict's context.
absl::Status CheckSameModel(const v1::Job& job, const v1::DeviceInfo& target);

}  // namespace kbench::client
