// Many keys at once: the verdicts of one diff (its variants, its points) are one family of
// tests, and `--fail-on slower` over 100 keys at 0.5 % each would fail a clean run 39 % of the
// time. Holm's step-down procedure (Holm, Scand. J. Statist. 1979) bounds the chance of any
// false SLOWER/FASTER in the family by alpha, and is never less powerful than Bonferroni.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace kbench::analysis {

inline constexpr char kFamilyCorrection[] = "holm";

// Holm-adjusted p-values, in the input's order: the i-th smallest p times (m - i + 1), made
// monotone and capped at 1. A verdict is significant in the family when its adjusted p < alpha.
std::vector<double> HolmAdjust(std::span<const double> p_values);

// The expected number of false SLOWER/FASTER verdicts among `keys` keys with no real change,
// when each is tested at level alpha / keys (Holm's first step, Bonferroni's bound): alpha,
// however many keys; without a correction it would be keys x alpha.
double ExpectedFalseVerdicts(int keys, double alpha);

}  // namespace kbench::analysis
