// Judging a store's record of a stream of jobs.
#include "tests/integration/job_audit.h"

#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace kbench::testing {
namespace {

// What a SUCCEEDED cpu benchmark stores (server/executor/benchmark_job.cc's
// WriteSamplesArtifact); its result lives in the jobs row.
const std::set<std::string> kBenchmarkArtifacts = {"samples.csv"};

// Enough offenders to see a pattern; a check failing for hundreds of jobs stays readable.
constexpr size_t kShown = 25;

bool IsTerminalState(const std::string& state) {
  return state == "succeeded" || state == "failed" || state == "cancelled";
}

}  // namespace

void ExpectNone(const std::string& check, const std::vector<std::string>& offenders) {
  if (offenders.empty()) return;
  const std::vector<std::string> shown(offenders.begin(),
                                       offenders.begin() + std::min(kShown, offenders.size()));
  ADD_FAILURE() << check << ": " << offenders.size() << " job(s) fail it\n  "
                << absl::StrJoin(shown, "\n  ") << (offenders.size() > kShown ? "\n  ..." : "");
}

JobAudit::JobAudit(const Query& query, std::vector<std::string> accepted,
                   std::vector<NodeStop> stops)
    : accepted_(std::move(accepted)), stops_(std::move(stops)) {
  for (const auto& row :
       query("SELECT job_id, node, state, time_ns FROM job_transitions ORDER BY seq")) {
    Transition t{row[1], row[2], 0};
    EXPECT_TRUE(absl::SimpleAtoi(row[3], &t.time_ns)) << "job_transitions.time_ns " << row[3];
    transitions_[row[0]].push_back(std::move(t));
  }
  for (const auto& row : query("SELECT id, state, error FROM jobs")) {
    jobs_[row[0]] = {row[1], row[2]};
  }
  for (const auto& row : query("SELECT job_id, name, sha256 FROM artifacts")) {
    artifacts_[row[0]].push_back({row[1], row[2]});
  }
}

void JobAudit::ExpectEachEndedOnce() const {
  // An empty trail says nothing of any job: one failure, not one per job.
  if (transitions_.empty()) {
    ADD_FAILURE() << "each job ended once: job_transitions holds no row at all, so the store "
                     "keeps no trail to judge it by ("
                  << accepted_.size() << " jobs accepted)";
    return;
  }
  std::vector<std::string> offenders;
  for (const std::string& id : accepted_) {
    auto it = transitions_.find(id);
    if (it == transitions_.end()) {
      offenders.push_back(absl::StrCat(id, ": no transition at all (job lost)"));
      continue;
    }
    std::vector<std::string> trail, ends;
    for (const Transition& t : it->second) {
      trail.push_back(absl::StrCat(t.state, "@", t.node));
      if (IsTerminalState(t.state)) ends.push_back(t.state);
    }
    if (ends.size() != 1) {
      offenders.push_back(absl::StrCat(id, ": ", ends.size(), " terminal transitions; trail ",
                                       absl::StrJoin(trail, " > ")));
    }
  }
  ExpectNone("every accepted job has exactly one terminal transition", offenders);
}

std::vector<JobAudit::Transition> JobAudit::RunsOf(const std::string& job_id) const {
  std::vector<Transition> runs;
  auto it = transitions_.find(job_id);
  if (it == transitions_.end()) return runs;
  for (const Transition& t : it->second) {
    if (t.state == "running") runs.push_back(t);
  }
  return runs;
}

bool JobAudit::CutShort(const Transition& run, const Transition& next) const {
  // The run's node died (SIGKILL) or handed the job back (SIGTERM) while the run was under way,
  // so a second run is the recovery, not a duplicate: the stop came after the run began (the
  // node cannot start a run once dead) and before the next run began (the next run is the
  // re-queued job, not a second copy running beside the first).
  for (const NodeStop& stop : stops_) {
    if (stop.node == run.node && run.time_ns < stop.time_ns && stop.time_ns < next.time_ns) {
      return true;
    }
  }
  return false;
}

bool JobAudit::Interrupted(const std::string& job_id) const {
  const std::vector<Transition> runs = RunsOf(job_id);
  for (size_t i = 0; i + 1 < runs.size(); ++i) {
    if (CutShort(runs[i], runs[i + 1])) return true;
  }
  return false;
}

std::vector<std::string> JobAudit::Rerun() const {
  std::vector<std::string> rerun;
  for (const std::string& id : accepted_) {
    if (Interrupted(id)) rerun.push_back(id);
  }
  return rerun;
}

void JobAudit::ExpectNoneRanTwice() const {
  if (transitions_.empty()) {
    ADD_FAILURE() << "no job ran twice: job_transitions holds no row at all, so the store keeps "
                     "no trail of runs to judge it by";
    return;
  }
  std::vector<std::string> offenders;
  for (const std::string& id : accepted_) {
    const std::vector<Transition> runs = RunsOf(id);
    for (size_t i = 0; i + 1 < runs.size(); ++i) {
      if (CutShort(runs[i], runs[i + 1])) continue;
      offenders.push_back(absl::StrCat(id, ": ran on ", runs[i].node, " at ", runs[i].time_ns,
                                       " ns and again on ", runs[i + 1].node, " at ",
                                       runs[i + 1].time_ns, " ns, no stop of ", runs[i].node,
                                       " between"));
    }
  }
  ExpectNone("no job ran twice (a second run only after its node was stopped mid-run)", offenders);
}

void JobAudit::ExpectSucceeded() const {
  std::vector<std::string> offenders;
  for (const std::string& id : accepted_) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) {
      offenders.push_back(absl::StrCat(id, ": no row in jobs (job lost)"));
    } else if (it->second.state != "succeeded" && !Interrupted(id)) {
      offenders.push_back(absl::StrCat(id, ": ", it->second.state,
                                       " in the store's jobs row, error '", it->second.error, "'"));
    }
  }
  ExpectNone("every accepted job SUCCEEDED (one that a node stop cut short may have failed)",
             offenders);
}

void JobAudit::ExpectArtifactsIntact(v1::KbenchService::Stub& reader) const {
  std::vector<std::string> offenders;
  for (const std::string& id : accepted_) {
    auto job = jobs_.find(id);
    if (job == jobs_.end() || job->second.state != "succeeded") continue;
    auto stored = artifacts_.find(id);
    std::set<std::string> missing = kBenchmarkArtifacts;
    for (const ArtifactRow& artifact :
         stored == artifacts_.end() ? std::vector<ArtifactRow>{} : stored->second) {
      missing.erase(artifact.name);
      absl::StatusOr<ArtifactRead> read = ReadArtifact(reader, id, artifact.name);
      if (!read.ok()) {
        offenders.push_back(
            absl::StrCat(id, " ", artifact.name, ": GetArtifact ", read.status().ToString()));
      } else if (Sha256Hex(read->bytes) != artifact.sha256) {
        offenders.push_back(absl::StrCat(id, " ", artifact.name, ": bytes hash to ",
                                         Sha256Hex(read->bytes), ", the store recorded ",
                                         artifact.sha256));
      }
    }
    if (!missing.empty()) {
      offenders.push_back(absl::StrCat(id, ": SUCCEEDED without ", absl::StrJoin(missing, ", ")));
    }
  }
  ExpectNone("every SUCCEEDED job has all its artifacts, each matching its sha256", offenders);
}

}  // namespace kbench::testing
