// The per-kernel quantities `kbctl diff --explain` compares: their names, how a change of each
// is worded, and how large a change counts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/explain/kernel_facts.h"

namespace kbench::client::explain {

// Order of a kernel's findings: how the launches changed, then what ran differently (measured
// by ncu while it ran), then the module's resources that cause such changes.
enum class QuantityGroup { kLaunches = 0, kMeasured = 1, kResources = 2 };

struct Quantity {
  const char* id;     // KernelChange.quantity
  const char* label;  // "DRAM bytes"
  QuantityGroup group;
  // Worded as "+38 % DRAM bytes" (relative) or as "registers 64 → 32" (a transition).
  bool relative;
  // A transition counts when the values differ by at least this much (absolute).
  double min_absolute_change;
  std::optional<double> KernelFacts::*value;
  std::string (*format)(double);
};

// Every quantity compared, CUPTI's and ncu's.
const std::vector<Quantity>& Quantities();
// Those only Nsight Compute measures (listed as not measured without it).
std::string NcuQuantityLabels();

// "+38 %", "-4.5 %".
std::string FormatChangePercent(double percent);
// How strongly a value moved, for ranking: |ln(candidate / baseline)|, at most ln 4 (a change
// from or to zero counts as that largest change).
double ChangeMagnitude(double baseline, double candidate);

}  // namespace kbench::client::explain
