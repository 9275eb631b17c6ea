// Following, showing and cancelling a sweep as a whole; kbctl get / watch / cancel hand a
// sweep id ("s-...") here.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "client/session.h"
#include "kbench/v1/sweep.pb.h"

namespace kbench::client {

bool IsSweepId(const std::string& id);
bool IsSweepOver(v1::SweepState state);

// Polls the sweep until it is DONE or CANCELLED, with a progress line (points done / total,
// ETA) on stderr; returns its last state.
absl::StatusOr<v1::Sweep> WaitForSweep(Session& session, const std::string& sweep_id);

// Prints the sweep (a table of points x variants, or JSON with its jobs) and returns its
// outcome: kFailed when points failed or it was cancelled.
absl::Status PrintSweepReport(Session& session, const std::string& sweep_id);

absl::Status CancelSweep(Session& session, const std::string& sweep_id);

// Downloads every artifact of the sweep (tables, plots, report.html) into `dir`.
absl::Status SaveSweepArtifacts(Session& session, const v1::Sweep& sweep, const std::string& dir);

}  // namespace kbench::client
