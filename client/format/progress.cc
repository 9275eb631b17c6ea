// Progress lines while a job runs.
#include "client/format/progress.h"

#include "absl/strings/str_cat.h"
#include "client/args.h"
#include "client/format/table.h"
#include "client/format/units.h"
#include "client/format/usage_view.h"
#include "common/progress_phase_name.h"
#include "common/stopping_defaults.h"

namespace kbench::client {
namespace {

// Plain-line mode prints a new sample count at most this often (in the job's elapsed seconds).
constexpr double kPlainLineInterval = 1.0;

constexpr char kClearLine[] = "\r\033[K";

// `word`: ProgressPhaseWord's.
std::string PhaseName(const std::string& word) {
  if (word == "warmup") return "warm-up";
  if (word == "check") return "checking";
  if (word == "measure") return "measuring";
  if (word == "profile") return "profiling";
  return word;
}

}  // namespace

std::string ProgressPhaseWord(const v1::Progress& progress) {
  const std::string word = ProgressPhaseName(progress.progress_phase());
  return word.empty() ? progress.phase() : word;  // else an older server's word, or ""
}

std::string DescribeProgress(const v1::Job& job) {
  const std::string device = job.device().empty() ? job.spec().device() : job.device();
  std::string line = absl::StrCat("job ", job.id(), " ", StateName(job.state()));
  if (!device.empty()) absl::StrAppend(&line, " on ", device);
  if (job.state() == v1::JOB_STATE_QUEUED && job.has_queue_place()) {
    // "job j-1 queued: 3rd in line on cuda:0, about 40 s"
    const std::string place = DescribeQueuePlace(job.queue_place());
    if (!place.empty()) return absl::StrCat("job ", job.id(), " queued: ", place);
  }
  if (job.state() != v1::JOB_STATE_RUNNING) {
    if (!job.error().empty()) absl::StrAppend(&line, ": ", job.error());
    return line;
  }
  const v1::Progress& p = job.progress();
  if (ProgressPhaseWord(p).empty()) return line;
  absl::StrAppend(&line, ": ", PhaseName(ProgressPhaseWord(p)));
  if (!p.variant().empty()) absl::StrAppend(&line, " ", p.variant());
  if (p.samples() > 0) {
    const double target = job.spec().stopping().max_noise() > 0 ? job.spec().stopping().max_noise()
                                                                : kDefaultMaxNoise;
    absl::StrAppend(&line, ": ", p.samples(), p.samples() == 1 ? " sample" : " samples");
    // Progress.noise is the samples' relative standard deviation; the stopping rule ends at a
    // median whose 95 % interval is within the target, or a spread within it (types.proto,
    // HarnessStopCriterion): the line names both, so a 290 % spread is not read as failing.
    if (p.noise() > 0) {
      absl::StrAppend(&line, ", spread ", FormatPercent(p.noise()), " (stops at a median within ",
                      FormatPercent(target), ", or a spread within it)");
    }
  }
  if (p.elapsed_seconds() > 0) absl::StrAppend(&line, ", ", FormatElapsed(p.elapsed_seconds()));
  return line;
}

void ProgressLine::Update(const v1::Job& job) {
  const std::string line = DescribeProgress(job);
  if (tty_) {
    // One column spare: a line that fills the last column wraps on some terminals.
    *err_ << kClearLine << (columns_ > 1 ? Truncate(line, columns_ - 1) : line) << std::flush;
    drawn_ = true;
    return;
  }
  const v1::Progress& p = job.progress();
  const std::string key = absl::StrCat(job.state(), "/", ProgressPhaseWord(p), "/", p.variant(),
                                       "/", job.queue_place().position());
  if (key == last_key_ && p.elapsed_seconds() < last_elapsed_ + kPlainLineInterval) return;
  last_key_ = key;
  last_elapsed_ = p.elapsed_seconds();
  *err_ << line << "\n" << std::flush;
}

void ProgressLine::Finish() {
  if (tty_ && drawn_) *err_ << kClearLine << std::flush;
  drawn_ = false;
}

}  // namespace kbench::client
