// A result-index row for the store tests: gelu on the cpu, alice's, correct, 10 samples.
#pragma once

#include <string>

#include "server/store/result_index.h"

namespace kbench::store::testing {

inline IndexedResult ResultRow(const std::string& job, const std::string& variant,
                               const std::string& shape, double median_seconds) {
  IndexedResult r;
  r.job_id = job;
  r.variant = variant;
  r.kernel = "gelu";
  r.shape = shape;
  r.dtype = "f32";
  r.mode = "hot";
  r.device = "cpu";
  r.device_model = "Some CPU";
  r.owner = "alice";
  r.median_seconds = median_seconds;
  r.samples = 10;
  r.correct = true;
  return r;
}

}  // namespace kbench::store::testing
