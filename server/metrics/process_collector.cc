// process_* from /proc (proc(5)).
#include "server/metrics/process_collector.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace kbench::metrics {
namespace {

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type,
                                double value) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(m);
  return f;
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessFamilies(const ProcessReadings& r) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  // The command name (field 2) is in parentheses and may hold spaces or ')': fields after the
  // last ')' start at field 3 (state).
  const size_t close = r.stat.rfind(')');
  if (close != std::string::npos && r.ticks_per_second > 0 && r.page_bytes > 0) {
    const std::vector<std::string> f =
        absl::StrSplit(r.stat.substr(close + 1), ' ', absl::SkipWhitespace());
    // f[0] is field 3; field N is f[N - 3].
    double utime = 0, stime = 0, threads = 0, start_ticks = 0, vsize = 0, rss_pages = 0;
    if (f.size() >= 22 && absl::SimpleAtod(f[11], &utime) && absl::SimpleAtod(f[12], &stime) &&
        absl::SimpleAtod(f[17], &threads) && absl::SimpleAtod(f[19], &start_ticks) &&
        absl::SimpleAtod(f[20], &vsize) && absl::SimpleAtod(f[21], &rss_pages)) {
      const double ticks = static_cast<double>(r.ticks_per_second);
      out.push_back(Family("process_cpu_seconds_total",
                           "Total user and system CPU time spent in seconds.", MetricType::Counter,
                           (utime + stime) / ticks));
      out.push_back(Family("process_resident_memory_bytes", "Resident memory size in bytes.",
                           MetricType::Gauge, rss_pages * static_cast<double>(r.page_bytes)));
      out.push_back(Family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                           MetricType::Gauge, vsize));
      out.push_back(Family("process_threads", "Number of OS threads in the process.",
                           MetricType::Gauge, threads));
      if (r.boot_time_seconds >= 0) {
        out.push_back(Family(
            "process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
            MetricType::Gauge, static_cast<double>(r.boot_time_seconds) + start_ticks / ticks));
      }
    }
  }
  if (r.open_fds >= 0) {
    out.push_back(Family("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
                         static_cast<double>(r.open_fds)));
  }
  if (r.max_fds >= 0) {
    out.push_back(Family("process_max_fds", "Maximum number of open file descriptors.",
                         MetricType::Gauge, static_cast<double>(r.max_fds)));
  }
  return out;
}

ProcessReadings ReadThisProcess() {
  ProcessReadings r;
  r.stat = ReadFile("/proc/self/stat");
  r.ticks_per_second = sysconf(_SC_CLK_TCK);
  r.page_bytes = sysconf(_SC_PAGESIZE);
  std::istringstream stat(ReadFile("/proc/stat"));
  for (std::string line; std::getline(stat, line);) {
    if (line.rfind("btime ", 0) == 0 && !absl::SimpleAtoi(line.substr(6), &r.boot_time_seconds)) {
      r.boot_time_seconds = -1;
    }
  }
  if (DIR* fds = opendir("/proc/self/fd")) {
    long long n = 0;
    while (const dirent* e = readdir(fds)) {
      if (e->d_name[0] != '.') ++n;
    }
    closedir(fds);
    r.open_fds = n - 1;  // the directory stream's own descriptor
  }
  if (rlimit limit{}; getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    r.max_fds = static_cast<long long>(limit.rlim_cur);
  }
  return r;
}

}  // namespace kbench::metrics
