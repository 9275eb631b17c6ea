// The standard process_* series of Prometheus' client libraries (prometheus-cpp has none), read
// from /proc/self at scrape time: CPU seconds, resident and virtual memory, open and maximum file
// descriptors, threads, start time. A series /proc cannot give is left out, never a zero.
#pragma once

#include <string>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace kbench::metrics {

// What the process series are computed from: /proc/self/stat's fields after the command name,
// the clock tick and page size, /proc/stat's btime, the number of open descriptors and their
// soft limit. Parsed separately so that the arithmetic is tested on fixed text.
struct ProcessReadings {
  std::string stat;  // /proc/self/stat, whole
  long ticks_per_second = 0;
  long page_bytes = 0;
  long long boot_time_seconds = -1;  // /proc/stat btime; -1 unknown
  long long open_fds = -1;
  long long max_fds = -1;
};

// The families from `r`; those whose inputs are missing or malformed are left out.
std::vector<prometheus::MetricFamily> ProcessFamilies(const ProcessReadings& r);

// Reads this process now.
ProcessReadings ReadThisProcess();

class ProcessCollector final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    return ProcessFamilies(ReadThisProcess());
  }
};

}  // namespace kbench::metrics
