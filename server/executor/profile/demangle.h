// Kernel names for people: CUPTI reports C++ kernels by their mangled names.
#pragma once

#include <string>

namespace kbench::executor::profile {

// The demangled name (abi::__cxa_demangle), or `name` unchanged when it is not a mangled C++
// name (extern "C" kernels, Triton kernels, already-demangled names).
std::string Demangle(const std::string& name);

}  // namespace kbench::executor::profile
