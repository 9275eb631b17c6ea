// Ends sweeps: once every point's job has ended, writes the sweep's table (CSV, JSON), plots
// (gnuplot, SVG and PNG) and HTML report under <data-dir>/sweeps/<id>/, records them as the
// sweep's artifacts and marks it DONE (or CANCELLED). A background thread polls the store, so
// a sweep whose last point ended while kbenchd was down is reported after the restart.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/v1/sweep.pb.h"
#include "kbench/v1/types.pb.h"
#include "server/store/artifact_bytes.h"
#include "server/store/sweep_store.h"

namespace kbench::reports {

// A sweep as the API shows it, and (when asked for) its points' jobs with their results, in
// point order.
using SweepLoader = std::function<absl::StatusOr<std::pair<v1::Sweep, std::vector<v1::Job>>>(
    const store::SweepRecord&, bool with_jobs)>;

struct SweepReporterOptions {
  std::string data_dir;
  absl::Duration poll_interval = absl::Milliseconds(500);
  // gnuplot's path; empty: looked up in $PATH. Without gnuplot the report has no plots.
  std::string gnuplot;
  double gnuplot_timeout_seconds = 60;
  // In a fleet, the report's files also go into the database (keyed by the sweep's id), so
  // every node serves them; null on one host.
  store::ArtifactChunks* chunks = nullptr;
};

class SweepReporter {
 public:
  // `store` must outlive the reporter; `load` is called from its thread.
  SweepReporter(store::SweepStore* store, SweepLoader load, SweepReporterOptions options);
  ~SweepReporter();  // Stop()

  void Start();
  // Ends the thread after the pass under way.
  void Stop();

  // One pass over the unfinished sweeps: reports those whose points have all ended.
  absl::Status ReportFinished();

 private:
  absl::Status Report(const store::SweepRecord& record, const v1::Sweep& sweep,
                      const std::vector<v1::Job>& jobs);
  // Writes the files into `dir`; returns (name, content type) of each.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> WriteFiles(
      const std::string& dir, const v1::Sweep& sweep, const std::vector<v1::Job>& jobs);
  absl::Status Record(const std::string& sweep_id, const std::string& name,
                      const std::string& content_type);

  store::SweepStore* store_;
  SweepLoader load_;
  SweepReporterOptions options_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool first_pass_ = true;  // only touched by the reporter's thread
  std::thread thread_;
};

}  // namespace kbench::reports
