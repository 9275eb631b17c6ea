// Joining a profile's CUPTI rows and ncu metrics into one record per kernel.
#include "client/explain/kernel_facts.h"

#include <algorithm>

#include "absl/strings/string_view.h"

namespace kbench::client::explain {
namespace {

KernelFacts FromRow(const v1::ProfileKernelRow& row) {
  KernelFacts k;
  k.name = row.name();
  k.calls = row.calls();
  k.total_seconds = row.total_seconds();
  k.mean_seconds = row.mean_seconds();
  // CUPTI records these with every kernel launch, so a row always has them.
  k.registers = row.registers_per_thread();
  k.local_bytes_per_thread = static_cast<double>(row.local_bytes_per_thread());
  k.shared_bytes = static_cast<double>(row.static_shared_bytes() + row.dynamic_shared_bytes());
  if (row.theoretical_occupancy() > 0) k.theoretical_occupancy = row.theoretical_occupancy();
  return k;
}

void AddNcu(const v1::NcuMetrics& m, KernelFacts* k) {
  k->ncu = true;
  if (m.has_dram_bytes()) k->dram_bytes = m.dram_bytes();
  if (m.has_l2_bytes()) k->l2_bytes = m.l2_bytes();
  if (m.has_local_load_bytes() && m.has_local_store_bytes()) {
    k->local_traffic_bytes = m.local_load_bytes() + m.local_store_bytes();
  }
  if (m.has_instructions_executed()) k->instructions = m.instructions_executed();
  // Reports before these fields had the occupancy only; 0 there means "not asked".
  if (m.achieved_occupancy_percent() > 0)
    k->achieved_occupancy = m.achieved_occupancy_percent() / 100;
  if (!k->registers && m.has_registers_per_thread()) k->registers = m.registers_per_thread();
  for (const v1::NcuMetrics::StallReason& s : m.top_stall_reasons())
    k->stall_shares[s.name()] = s.share();
}

}  // namespace

std::vector<KernelFacts> KernelFactsOf(const v1::ProfileResult& profile) {
  std::vector<KernelFacts> kernels;
  for (const v1::ProfileKernelRow& row : profile.kernels()) kernels.push_back(FromRow(row));
  for (const v1::NcuMetrics& m : profile.ncu()) {
    auto it = std::find_if(kernels.begin(), kernels.end(),
                           [&](const KernelFacts& k) { return k.name == m.kernel(); });
    if (it == kernels.end()) {
      KernelFacts& k = kernels.emplace_back();
      k.name = m.kernel();
      k.mean_seconds = m.duration_seconds();
      it = kernels.end() - 1;
    }
    AddNcu(m, &*it);
  }
  return kernels;
}

std::string ShortKernelName(const std::string& name) {
  absl::string_view s = name;
  // The parameter list: the last top-level '(' ... ')'.
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) {
      s = s.substr(0, i);
      break;
    }
  }
  // Template arguments at the end: strip the trailing balanced "<...>".
  if (!s.empty() && s.back() == '>') {
    depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == '>') ++depth;
      if (s[i] == '<' && --depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  // Return type and namespaces: what follows the last space or "::".
  const size_t colons = s.rfind("::");
  if (colons != absl::string_view::npos) s = s.substr(colons + 2);
  const size_t space = s.rfind(' ');
  if (space != absl::string_view::npos) s = s.substr(space + 1);
  return s.empty() ? name : std::string(s);
}

}  // namespace kbench::client::explain
