// The table of compared quantities and the wording of their values.
#include "client/explain/quantities.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "client/format/units.h"

namespace kbench::client::explain {
namespace {

// A magnitude beyond 4x says nothing more for ranking; from or to zero is infinitely large.
const double kMaxMagnitude = std::log(4.0);

std::string Bytes(double v) { return FormatBytes(v); }
std::string Count(double v) {
  if (v >= 1e9) return absl::StrFormat("%.3g G", v / 1e9);
  if (v >= 1e6) return absl::StrFormat("%.3g M", v / 1e6);
  if (v >= 1e3) return absl::StrFormat("%.3g k", v / 1e3);
  return absl::StrFormat("%.0f", v);
}
std::string Percent(double fraction) { return absl::StrFormat("%.0f %%", 100 * fraction); }

}  // namespace

const std::vector<Quantity>& Quantities() {
  using G = QuantityGroup;
  static const std::vector<Quantity> quantities = {
      {"dram_bytes", "DRAM bytes", G::kMeasured, true, 0, &KernelFacts::dram_bytes, Bytes},
      {"local_traffic_bytes", "local-memory bytes", G::kMeasured, true, 0,
       &KernelFacts::local_traffic_bytes, Bytes},
      {"l2_bytes", "L2 bytes", G::kMeasured, true, 0, &KernelFacts::l2_bytes, Bytes},
      {"instructions", "instructions", G::kMeasured, true, 0, &KernelFacts::instructions, Count},
      {"achieved_occupancy", "achieved occupancy", G::kMeasured, false, 0.02,
       &KernelFacts::achieved_occupancy, Percent},
      {"local_bytes_per_thread", "spills", G::kResources, false, 1,
       &KernelFacts::local_bytes_per_thread, Bytes},
      {"registers", "registers", G::kResources, false, 1, &KernelFacts::registers, Count},
      {"shared_bytes", "shared memory", G::kResources, false, 1, &KernelFacts::shared_bytes, Bytes},
      {"theoretical_occupancy", "theoretical occupancy", G::kResources, false, 0.02,
       &KernelFacts::theoretical_occupancy, Percent},
  };
  return quantities;
}

std::string NcuQuantityLabels() {
  return "DRAM and L2 bytes, local-memory traffic, instructions, achieved occupancy, stall "
         "reasons";
}

std::string FormatChangePercent(double percent) {
  return std::fabs(percent) >= 10 ? absl::StrFormat("%+.0f %%", percent)
                                  : absl::StrFormat("%+.1f %%", percent);
}

double ChangeMagnitude(double baseline, double candidate) {
  if (baseline == candidate) return 0;
  if (baseline <= 0 || candidate <= 0) return kMaxMagnitude;
  return std::fmin(std::fabs(std::log(candidate / baseline)), kMaxMagnitude);
}

}  // namespace kbench::client::explain
