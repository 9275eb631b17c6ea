// Human-readable numbers for kbctl's tables: times, sizes, rates, percentages. Zero, negative
// or non-finite inputs print as "-" where a quantity was simply not measured.
#pragma once

#include <cstdint>
#include <string>

namespace kbench::client {

// Seconds in the unit that keeps 1 to 3 integer digits, 4 significant digits: "812.3 ns",
// "1.234 us", "12.35 ms", "2.000 s"; from 1000 s on, whole seconds.
std::string FormatSeconds(double seconds);
// A wall-clock span for people: "850ms", "12.3s", "4m05s", "2h03m".
std::string FormatElapsed(double seconds);
// Decimal rates: "812.3 MB/s", "1.234 GB/s", "3.35 TB/s".
std::string FormatBandwidth(double bytes_per_second);
// "45.6 GFLOP/s", "1.234 TFLOP/s".
std::string FormatFlops(double flops_per_second);
// Binary sizes of memory and files: "512 B", "1.5 KiB", "80.0 GiB".
std::string FormatBytes(double bytes);
// A fraction as a percentage: 0.931 -> "93.1%", 0.005 -> "0.50%", 0.00042 -> "0.042%".
std::string FormatPercent(double fraction);
// Relative error like 1.2e-07.
std::string FormatScientific(double value);
// A speed-up factor: "1.00x", "12.4x".
std::string FormatFactor(double factor);

}  // namespace kbench::client
