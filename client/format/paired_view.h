// How kbctl shows an interleaved A/B (issue 26): its pairs, the change over them with its
// interval, and the verdict's line ("SLOWER: +12.3 % [+10.1 %, +14.6 %] over 8 pairs", or
// "UNSURE: the 8 pairs resolve ±4.1 %; run --repeat 32 to resolve 3 %"); and the same as JSON.
#pragma once

#include <string>

#include "client/paired/paired_run.h"
#include "common/stats/paired_verdict.h"
#include "nlohmann/json_fwd.hpp"

namespace kbench::client {

// "+12.3 %" (signed, one decimal).
std::string SignedPercent(double percent);
// The verdict in one line, naming the pairs and, for UNSURE, the --repeat that would decide.
std::string PairedVerdictLine(const analysis::PairedVerdict& verdict);
// The verdict's numbers as a JSON object (verdict, change_percent, low_percent, ...).
nlohmann::json PairedVerdictJson(const analysis::PairedVerdict& verdict);

// A table of the pairs (source, baseline, candidate, change) and the verdict's line.
std::string RenderPairedRun(const std::string& baseline, const std::string& candidate,
                            const PairedRun& run, const analysis::PairedVerdict& verdict);
// {"baseline", "candidate", "job_ids", "pairs": [...], "verdict": {...}}, one JSON document.
std::string PairedRunJson(const std::string& baseline, const std::string& candidate,
                          const PairedRun& run, const analysis::PairedVerdict& verdict);

}  // namespace kbench::client
