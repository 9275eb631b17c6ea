// A compile job's report and a user variant's record (issue 10) in words: what kbctl compile
// prints, and the "what was timed" lines under a bench or compare result.
#pragma once

#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench::client {

// Compiler, options, each kernel's resources and occupancy, and the log.
std::string RenderCompileResult(const v1::CompileResult& compile);
// One line per user variant of the result: module sha256, entry, launch (expressions and
// values), compiler; empty when the result has none.
std::string RenderUserModules(const v1::JobResult& result);

}  // namespace kbench::client
