// Correlation-id and span lookups for the trace and the summary.
#include "server/executor/profile/attribution.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace kbench::executor::profile {
namespace {

// Spans sorted by start, for "the innermost span containing t" in O(log n) when spans do not
// overlap (iterations, phases) and still correctly when they nest.
class SpanIndex {
 public:
  void Add(const HostSpan& span, int index) {
    entries_.push_back({span.start_ns, span.end_ns, index});
  }

  void Build() {
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.start < b.start; });
    max_end_.resize(entries_.size());
    uint64_t m = 0;
    for (size_t i = 0; i < entries_.size(); ++i) max_end_[i] = m = std::max(m, entries_[i].end);
  }

  // The shortest span containing t, or -1.
  int Find(uint64_t t) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), t,
                               [](uint64_t v, const Entry& e) { return v < e.start; });
    int best = -1;
    uint64_t best_length = UINT64_MAX;
    // Walk back over spans starting at or before t while one of them may still reach t.
    for (size_t i = static_cast<size_t>(it - entries_.begin()); i-- > 0;) {
      if (max_end_[i] < t) break;
      const Entry& e = entries_[i];
      if (e.end >= t && e.end - e.start < best_length) {
        best_length = e.end - e.start;
        best = e.index;
      }
    }
    return best;
  }

 private:
  struct Entry {
    uint64_t start, end;
    int index;
  };
  std::vector<Entry> entries_;
  std::vector<uint64_t> max_end_;
};

class Attributor {
 public:
  explicit Attributor(const ActivityLog& log) : log_(log) {
    for (size_t i = 0; i < log.api_calls.size(); ++i) {
      const ApiActivity& api = log.api_calls[i];
      auto [it, inserted] = by_correlation_.emplace(api.correlation_id, static_cast<int>(i));
      // Prefer the runtime call: it is what the job's code called.
      if (!inserted && api.domain == ApiActivity::Domain::kRuntime &&
          log.api_calls[it->second].domain != ApiActivity::Domain::kRuntime) {
        it->second = static_cast<int>(i);
      }
    }
    for (size_t s = 0; s < log.spans.size(); ++s) {
      const HostSpan& span = log.spans[s];
      (span.phase == kPhaseIteration ? iterations_ : phases_).Add(span, static_cast<int>(s));
    }
    iterations_.Build();
    phases_.Build();
  }

  Attribution For(uint32_t correlation_id, uint64_t own_start) const {
    Attribution a;
    uint64_t t = own_start;
    if (auto it = by_correlation_.find(correlation_id);
        correlation_id != 0 && it != by_correlation_.end()) {
      a.launch_api = it->second;
      t = log_.api_calls[it->second].start_ns;
    }
    a.phase_span = phases_.Find(t);
    a.iteration_span = iterations_.Find(t);
    return a;
  }

 private:
  const ActivityLog& log_;
  std::unordered_map<uint32_t, int> by_correlation_;
  SpanIndex phases_, iterations_;
};

}  // namespace

AttributedLog Attribute(const ActivityLog& log) {
  const Attributor attributor(log);
  AttributedLog out;
  out.kernels.reserve(log.kernels.size());
  for (const KernelActivity& k : log.kernels) {
    out.kernels.push_back(attributor.For(k.correlation_id, k.start_ns));
  }
  out.transfers.reserve(log.transfers.size());
  for (const TransferActivity& t : log.transfers) {
    out.transfers.push_back(attributor.For(t.correlation_id, t.start_ns));
  }
  return out;
}

}  // namespace kbench::executor::profile
