// Demangling through the C++ ABI's runtime, which owns the only complete demangler we have.
#include "server/executor/profile/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kbench::executor::profile {

std::string Demangle(const std::string& name) {
  // Only "_Z..." names are mangled; __cxa_demangle would also "demangle" a plain word like "i"
  // as a type name ("int").
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || out == nullptr) return name;
  return std::string(out.get());
}

}  // namespace kbench::executor::profile
