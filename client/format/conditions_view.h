// Issue 29 in kbctl's words: a variant's energy per launch and its clean-measurement stamp, as
// one line each (the result view, the compare table, diff's energy note).
#pragma once

#include <optional>
#include <string>

#include "kbench/v1/conditions.pb.h"

namespace kbench::client {

// "3.12 mJ/launch, 212 W, 4.1 GFLOP/J, 0.9 GB/J" or "unsupported on cpu" (never a zero).
std::string EnergySummary(const v1::Energy& energy);
// The compare table's cell: "3.12 mJ" or "-".
std::string EnergyCell(const v1::Energy& energy);
// "clean" or "NOT CLEAN: reason; reason", with the thermal gate's wait; "-" without a stamp.
std::string StampSummary(const v1::CleanStamp& stamp);
// The compare table's cell: "clean", "NOT CLEAN (2)" or "-".
std::string StampCell(const v1::CleanStamp& stamp);
// "1.2 mJ", "340 uJ", "2.5 J".
std::string FormatJoules(double joules);
// diff's line when one side is faster but spends more energy per launch; empty otherwise or
// when either side's energy is unknown.
std::string EnergyTradeOff(double baseline_seconds, std::optional<double> baseline_joules,
                           double candidate_seconds, std::optional<double> candidate_joules);

}  // namespace kbench::client
