// The rules a user kernel must follow, shared by kbenchd (checked at submit) and the executor
// (which applies them again before compiling): size limits, the compiler-option allow-list,
// the entry name, the target architecture, and a cubin's architecture read from its ELF header
// on the CPU (no GPU needed). Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kbench::kernels {

// Submitted code beyond these is refused at submit with INVALID_ARGUMENT naming the size and the
// limit (a request property, like a bad shape, not a server quota). kbenchd's gRPC receive limit
// is raised above the binary limit so that the refusal is ours, not the transport's.
inline constexpr size_t kMaxUserSourceBytes = size_t{1} << 20;   // CUDA and PTX text
inline constexpr size_t kMaxUserBinaryBytes = size_t{32} << 20;  // cubin, fatbin, Triton
// NVRTC and nvJitLink run in a child process killed after this long.
inline constexpr double kMaxCompileSeconds = 60;
inline constexpr int kMaxUserOptions = 64;

// OK for an option on the allow-list: -O0..-O3, --use_fast_math, -lineinfo, -maxrregcount=N,
// -DNAME[=VALUE], -std=c++17|c++20, --ftz=, --prec-div=, --prec-sqrt=, --fmad= (true|false),
// --extra-device-vectorization. Anything else is INVALID_ARGUMENT naming it (relocatable device
// code, include paths and architecture flags are ours to set).
absl::Status CheckCompilerOption(absl::string_view option);

// A C identifier of at most 256 characters (a mangled C++ name is one).
absl::Status CheckEntryName(absl::string_view entry);

// A compute architecture: sm_90a is {9, 0, true}.
struct SmArch {
  int major = 0;
  int minor = 0;
  // The arch-specific feature set ('a' suffix: wgmma, setmaxnreg on sm_90a).
  bool arch_specific = false;
  int number() const { return major * 10 + minor; }
  std::string ToString() const;
};

// "sm_80", "sm_90a", "sm_100a"...; INVALID_ARGUMENT otherwise.
absl::StatusOr<SmArch> ParseSmArch(absl::string_view text);
// The architecture a device of compute capability "9.0" compiles for: the arch-specific
// variant from sm_90 on (sm_90a on Hopper), so user code may use every feature of the device.
absl::StatusOr<SmArch> SmArchForComputeCapability(absl::string_view compute_capability);

// What a binary's header says.
struct ModuleBinaryInfo {
  bool fatbin = false;
  // ELF cubins: the SM number (e.g. 90) from e_flags; 0 for a fatbin.
  int sm = 0;
  // An ELF object that still needs linking (relocatable device code).
  bool relocatable = false;
};

// Reads an ELF cubin's or a fatbin's header; INVALID_ARGUMENT when it is neither.
absl::StatusOr<ModuleBinaryInfo> ReadModuleBinaryInfo(absl::string_view bytes);

// OK when the binary can load on `device`: a cubin for the same major architecture and a minor
// not above the device's; a fatbin is left to the driver. INVALID_ARGUMENT naming both
// architectures otherwise; relocatable objects are refused.
absl::Status CheckBinaryForArch(absl::string_view bytes, const SmArch& device);

}  // namespace kbench::kernels
