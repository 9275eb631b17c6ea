// How kbctl bisect shows its search: the step table (version, pairs, change, interval,
// verdict, jobs) as evidence, and the conclusion (the culprit, no slower version, or the
// version it could not decide); and the same as one JSON document.
#pragma once

#include <string>
#include <vector>

#include "client/bisect/search.h"
#include "client/bisect/versions.h"

namespace kbench::client {

// "version 4 (1300x1024) is the first slower than 1000x1024; version 3 (...) is not" and the
// like, for the table and for the exit status's message.
std::string BisectConclusion(const std::vector<Version>& versions, const BisectResult& result);

std::string RenderBisect(const std::vector<Version>& versions, const BisectResult& result);
std::string BisectJson(const std::vector<Version>& versions, const BisectResult& result);

}  // namespace kbench::client
