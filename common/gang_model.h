// The device model a result's history is keyed by (issue 30), shared by kbenchd's result index
// and kbctl's verdicts. Header-only.
#pragma once

#include <string>

namespace kbench {

// The GPU's name, and for a multi-GPU job the gang's size beside it ("NVIDIA H200 x2"): a
// collective's time depends on how many ranks take part, so a 2-GPU and a 4-GPU all_reduce of
// one count are different keys, and neither mixes into one-GPU history.
inline std::string HistoryDeviceModel(const std::string& device_name, int devices) {
  if (devices <= 1) return device_name;
  return device_name + " x" + std::to_string(devices);
}

}  // namespace kbench
