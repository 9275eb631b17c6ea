// The progress kbctl shows on stderr while a job queues and runs: one line redrawn in place on a
// terminal, plain lines (at most about one per second of job time) when stderr is a file or pipe.
#pragma once

#include <ostream>
#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench::client {

// The phase's short word ("warmup", "measure", "check", "profile"), "" when none. Reads the enum;
// falls back to the deprecated string that a server predating the enum sends.
std::string ProgressPhaseWord(const v1::Progress& progress);

// "job 42 running on cuda:0: measure fused: 312 samples, noise 0.41% (target 0.50%), 3.2s".
std::string DescribeProgress(const v1::Job& job);

class ProgressLine {
 public:
  // `columns`: the terminal's width, 0 if unknown; a redrawn line is cut to fit it.
  ProgressLine(std::ostream* err, bool tty, int columns = 0)
      : err_(err), tty_(tty), columns_(columns) {}
  ~ProgressLine() { Finish(); }

  void Update(const v1::Job& job);
  // On a terminal, erases the line so the result prints on a clean screen.
  void Finish();

 private:
  std::ostream* err_;
  bool tty_;
  int columns_;
  bool drawn_ = false;
  // What the last plain line said, to print only news.
  std::string last_key_;
  double last_elapsed_ = -1;
};

}  // namespace kbench::client
