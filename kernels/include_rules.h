// What a user's CUDA source may name as a file (issue 24, item 1): the preprocessor's view of
// its #include, __has_include, #pragma, _Pragma and #line, checked at submit by kbenchd and again
// in the compile child before NVRTC sees the source. One layer of two: the compile child's
// Landlock wall and NVRTC's include path (the toolkit's headers only) are the other.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kbench::kernels {

// OK when every file the source names is a relative path without a ".." component, given
// literally: `#include "x.h"` or `<cuda/std/limits>`. INVALID_ARGUMENT naming the directive
// (and the file) for an absolute path, a "..", a computed include (`#include MACRO`, whose
// expansion a scan cannot see: refused whatever it expands to), `#pragma GCC dependency` or
// `include_alias`, a computed `_Pragma(...)`, or a `#line` naming such a file. Line
// continuations, comments between tokens, `%:` (the digraph of `#`) and raw strings are read as
// the preprocessor reads them.
absl::Status CheckSourceIncludes(absl::string_view source);

// OK for a program name without a directory (NVRTC resolves quoted includes beside it and
// quotes it in diagnostics): letters, digits, '_', '-', '.', at most 128 characters, not "." or
// "..". An empty name is OK (the compiler's default is used).
absl::Status CheckSourceFileName(absl::string_view file_name);

}  // namespace kbench::kernels
