// Registered user variants for people: `kbctl variants list` as a table, `variants show` as a
// block of fields.
#pragma once

#include <string>

#include "kbench/v1/variants.pb.h"

namespace kbench::client {

// OPERATION NAME FORM OWNER CODE SHA256 REGISTERED (UTC), one row per variant; a line saying
// there are none when the list is empty.
std::string RenderVariantList(const v1::ListVariantsResponse& list);

// The variant's fields; with its kernel's entry, launch and options when the reply has them.
std::string RenderVariant(const v1::RegisteredVariant& variant);

}  // namespace kbench::client
