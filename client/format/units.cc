// Unit scaling for kbctl's human-readable output.
#include "client/format/units.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kbench::client {
namespace {

constexpr char kNone[] = "-";

bool Measured(double v) { return std::isfinite(v) && v > 0; }

// 4 significant digits for a value in [1, 1000): "1.234", "12.35", "123.4".
std::string FourDigits(double v) {
  if (v < 9.9995) return absl::StrFormat("%.3f", v);
  if (v < 99.995) return absl::StrFormat("%.2f", v);
  return absl::StrFormat("%.1f", v);
}

// Scales a rate by powers of 1000 and appends prefix + unit.
std::string DecimalScaled(double v, const char* unit) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  // Rounding may carry 999.95 up to "1000.0": scale when the printed value would reach 1000.
  while (v >= 999.95 && i < 6) {
    v /= 1000;
    ++i;
  }
  return absl::StrCat(FourDigits(v), " ", kPrefixes[i], unit);
}

}  // namespace

std::string FormatSeconds(double s) {
  if (!std::isfinite(s) || s < 0) return kNone;
  if (s == 0) return "0 s";
  if (s >= 999.95) return absl::StrFormat("%.0f s", s);
  static constexpr struct {
    double scale;
    const char* unit;
  } kUnits[] = {{1, "s"}, {1e3, "ms"}, {1e6, "us"}, {1e9, "ns"}};
  for (const auto& u : kUnits) {
    const double v = s * u.scale;
    if (v >= 0.99995 || u.scale == 1e9) return absl::StrCat(FourDigits(v), " ", u.unit);
  }
  return kNone;  // Unreachable: the ns row always returns.
}

std::string FormatElapsed(double s) {
  if (!std::isfinite(s) || s < 0) return kNone;
  if (s < 1) return absl::StrFormat("%.0fms", s * 1e3);
  if (s < 60) return absl::StrFormat("%.1fs", s);
  const int64_t total = static_cast<int64_t>(s);
  if (total < 3600) return absl::StrFormat("%dm%02ds", total / 60, total % 60);
  if (total < 86400) return absl::StrFormat("%dh%02dm", total / 3600, (total % 3600) / 60);
  return absl::StrFormat("%dd%02dh", total / 86400, (total % 86400) / 3600);
}

std::string FormatBandwidth(double bytes_per_second) {
  if (!Measured(bytes_per_second)) return kNone;
  return DecimalScaled(bytes_per_second, "B/s");
}

std::string FormatFlops(double flops_per_second) {
  if (!Measured(flops_per_second)) return kNone;
  return DecimalScaled(flops_per_second, "FLOP/s");
}

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return kNone;
  if (bytes < 1024) return absl::StrFormat("%.0f B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = -1;
  while (bytes >= 1023.95 && i < 4) {
    bytes /= 1024;
    ++i;
  }
  return absl::StrFormat("%.1f %s", bytes, kUnits[i]);
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction) || fraction < 0) return kNone;
  const double p = fraction * 100;
  if (p == 0) return "0%";
  if (p >= 9.995) return absl::StrFormat("%.1f%%", p);
  if (p >= 0.09995) return absl::StrFormat("%.2f%%", p);
  return absl::StrFormat("%.2g%%", p);
}

std::string FormatScientific(double value) {
  if (std::isnan(value)) return "nan";
  return absl::StrFormat("%.2g", value);
}

std::string FormatFactor(double factor) {
  if (!Measured(factor)) return kNone;
  if (factor >= 99.95) return absl::StrFormat("%.0fx", factor);
  if (factor >= 9.995) return absl::StrFormat("%.1fx", factor);
  return absl::StrFormat("%.2fx", factor);
}

}  // namespace kbench::client
