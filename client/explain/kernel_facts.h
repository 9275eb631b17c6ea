// What one profile says about each of its kernels, CUPTI's rows and Nsight Compute's metrics
// joined by name, every quantity absent when it was not measured (never zero instead).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kbench/v1/types.pb.h"

namespace kbench::client::explain {

struct KernelFacts {
  std::string name;  // as the profile names it (demangled)
  // CUPTI: launches and their GPU time over the profile's iterations.
  int64_t calls = 0;
  double total_seconds = 0;
  double mean_seconds = 0;
  // CUPTI's record of the launch (the module's resources).
  std::optional<double> registers;
  std::optional<double> local_bytes_per_thread;  // spills and local arrays
  std::optional<double> shared_bytes;            // static + dynamic
  std::optional<double> theoretical_occupancy;   // fraction
  // Nsight Compute, per launch.
  bool ncu = false;
  std::optional<double> dram_bytes;
  std::optional<double> l2_bytes;
  std::optional<double> local_traffic_bytes;  // local loads + stores
  std::optional<double> instructions;
  std::optional<double> achieved_occupancy;    // fraction
  std::map<std::string, double> stall_shares;  // the top reasons: name → share of stalls
};

// One entry per kernel name: CUPTI's rows in their order, then kernels only ncu saw.
std::vector<KernelFacts> KernelFactsOf(const v1::ProfileResult& profile);

// "softmax_kernel" for "void ns::softmax_kernel<float, 4>(float const*, float*, long)": the
// name a person recognises, without return type, namespaces, template arguments or parameters.
std::string ShortKernelName(const std::string& name);

}  // namespace kbench::client::explain
