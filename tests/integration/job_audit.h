// What a store recorded of a stream of jobs, judged against what a chaos test did to the nodes
// that ran them: every accepted job ended exactly once, none ran twice unless the test stopped
// its node mid-run, and each that succeeded kept its artifacts intact. The same checks serve a
// fleet (PostgreSQL) and a single host (SQLite): both stores have the same tables.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kbench/v1/service.grpc.pb.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {

// A node the test stopped (SIGKILL or SIGTERM), or whose disk it filled (a single host: node
// ""), and when, in CLOCK_REALTIME nanoseconds: the clock of job_transitions.time_ns, which the
// store's server on this host stamps.
struct NodeStop {
  std::string node;
  int64_t time_ns = 0;
};

// One failure for a check that `offenders` (a line per job) fail, naming the first few: a check
// failing for hundreds of jobs stays readable. Nothing when there are none.
void ExpectNone(const std::string& check, const std::vector<std::string>& offenders);

class JobAudit {
 public:
  // Runs `sql` on the store.
  using Query = std::function<Rows(const std::string& sql)>;

  // Reads job_transitions, jobs and artifacts once, now, through `query`. `accepted`: the ids
  // the test's submits got back; `stops`: the nodes it stopped.
  JobAudit(const Query& query, std::vector<std::string> accepted, std::vector<NodeStop> stops);

  // The accepted jobs that ran again after a stop cut a run of theirs short: the recoveries the
  // test caused (for its timeline).
  std::vector<std::string> Rerun() const;

  // Every accepted job has exactly one terminal transition (succeeded, failed or cancelled).
  void ExpectEachEndedOnce() const;
  // Every accepted job started (a `running` transition) once, or again only after a run that a
  // stop cut short.
  void ExpectNoneRanTwice() const;
  // Every accepted job is SUCCEEDED, unless a stop cut one of its runs short (it may have spent
  // its attempts then).
  void ExpectSucceeded() const;
  // Each SUCCEEDED job has the artifacts a cpu benchmark stores (samples.csv), and each of its
  // artifacts, read with GetArtifact through `reader`, hashes to the sha256 the store recorded.
  void ExpectArtifactsIntact(v1::KbenchService::Stub& reader) const;

 private:
  struct Transition {
    std::string node;
    std::string state;
    int64_t time_ns = 0;
  };
  struct JobRow {
    std::string state;
    std::string error;
  };
  struct ArtifactRow {
    std::string name;
    std::string sha256;
  };

  // A run that a stop cut short: its node was stopped after the run began and before `next`
  // (the job's following run) began.
  bool CutShort(const Transition& run, const Transition& next) const;
  // The job's `running` transitions, in order.
  std::vector<Transition> RunsOf(const std::string& job_id) const;
  bool Interrupted(const std::string& job_id) const;

  std::vector<std::string> accepted_;
  std::vector<NodeStop> stops_;
  std::map<std::string, std::vector<Transition>> transitions_;  // by job, in order
  std::map<std::string, JobRow> jobs_;
  std::map<std::string, std::vector<ArtifactRow>> artifacts_;  // by job
};

}  // namespace kbench::testing
