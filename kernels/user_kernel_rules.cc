// User-kernel rules: option allow-list, names, architectures, cubin headers.
#include "kernels/user_kernel_rules.h"

#include <cctype>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace kbench::kernels {
namespace {

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// -DNAME or -DNAME=VALUE with a value of letters, digits and ._+-
bool IsDefine(absl::string_view option) {
  if (!absl::ConsumePrefix(&option, "-D")) return false;
  const size_t eq = option.find('=');
  if (!IsIdentifier(option.substr(0, eq))) return false;
  if (eq == absl::string_view::npos) return true;
  for (char c : option.substr(eq + 1)) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::strchr("._+-", c) == nullptr) {
      return false;
    }
  }
  return true;
}

bool IsMaxRegCount(absl::string_view option) {
  if (!absl::ConsumePrefix(&option, "-maxrregcount=") &&
      !absl::ConsumePrefix(&option, "--maxrregcount=")) {
    return false;
  }
  int n = 0;
  return absl::SimpleAtoi(option, &n) && n >= 16 && n <= 255;
}

bool IsBooleanFlag(absl::string_view option) {
  for (const char* prefix : {"--ftz=", "--prec-div=", "--prec-sqrt=", "--fmad="}) {
    absl::string_view rest = option;
    if (absl::ConsumePrefix(&rest, prefix)) return rest == "true" || rest == "false";
  }
  return false;
}

uint32_t ReadU32(absl::string_view b, size_t at) {
  uint32_t v = 0;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

uint16_t ReadU16(absl::string_view b, size_t at) {
  uint16_t v = 0;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr unsigned char kElfCudaOsAbi = 0x33;  // ELFOSABI_CUDA (older toolkits)
constexpr unsigned char kElfCudaOsAbiV2 = 0x41;
constexpr uint16_t kElfMachineCuda = 190;  // EM_CUDA
constexpr uint16_t kElfTypeRelocatable = 1;

}  // namespace

absl::Status CheckCompilerOption(absl::string_view option) {
  static const char* const kExact[] = {"-O0",
                                       "-O1",
                                       "-O2",
                                       "-O3",
                                       "--use_fast_math",
                                       "-use_fast_math",
                                       "-lineinfo",
                                       "--generate-line-info",
                                       "-std=c++17",
                                       "-std=c++20",
                                       "--extra-device-vectorization"};
  for (const char* ok : kExact) {
    if (option == ok) return absl::OkStatus();
  }
  if (IsDefine(option) || IsMaxRegCount(option) || IsBooleanFlag(option)) return absl::OkStatus();
  std::string why;
  if (absl::StrContains(option, "rdc") || absl::StrContains(option, "relocatable") ||
      option == "-dc" || absl::StrContains(option, "cudadevrt")) {
    why =
        " (relocatable device code and device-side launches are not supported: the module "
        "is loaded alone, without cudadevrt)";
  } else if (absl::StartsWith(option, "-arch") || absl::StartsWith(option, "--gpu-architecture")) {
    why = " (the architecture is the job device's, or the compile job's arch field)";
  }
  return absl::InvalidArgumentError(
      absl::StrCat("options: '", option.substr(0, 64), "' is not allowed", why,
                   "; allowed: -O0..-O3, --use_fast_math, -lineinfo, -maxrregcount=N (16..255), "
                   "-DNAME[=VALUE], -std=c++17|c++20, --ftz=, --prec-div=, --prec-sqrt=, --fmad= "
                   "(true|false), --extra-device-vectorization"));
}

absl::Status CheckEntryName(absl::string_view entry) {
  if (entry.empty()) return absl::InvalidArgumentError("entry: must be given (the kernel's name)");
  if (entry.size() > 256 || !IsIdentifier(entry)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "entry: '", entry.substr(0, 64), "' is not a C identifier (letters, digits, '_')"));
  }
  return absl::OkStatus();
}

std::string SmArch::ToString() const {
  return absl::StrCat("sm_", major, minor, arch_specific ? "a" : "");
}

absl::StatusOr<SmArch> ParseSmArch(absl::string_view text) {
  absl::string_view rest = text;
  SmArch arch;
  int number = 0;
  if (absl::ConsumePrefix(&rest, "sm_")) {
    arch.arch_specific = absl::ConsumeSuffix(&rest, "a");
    if (absl::SimpleAtoi(rest, &number) && number >= 50 && number <= 199 &&
        rest.find_first_not_of("0123456789") == absl::string_view::npos) {
      arch.major = number / 10;
      arch.minor = number % 10;
      return arch;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "arch: '", text.substr(0, 32), "' is not an architecture like sm_80, sm_90a or sm_100a"));
}

absl::StatusOr<SmArch> SmArchForComputeCapability(absl::string_view cc) {
  const size_t dot = cc.find('.');
  SmArch arch;
  if (dot == absl::string_view::npos || !absl::SimpleAtoi(cc.substr(0, dot), &arch.major) ||
      !absl::SimpleAtoi(cc.substr(dot + 1), &arch.minor) || arch.major <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("compute capability '", cc.substr(0, 16), "' is not like 9.0"));
  }
  // The 'a' targets exist for the top architecture of each generation from Hopper on.
  arch.arch_specific = arch.major >= 9 && (arch.minor == 0 || arch.major >= 10);
  return arch;
}

absl::StatusOr<ModuleBinaryInfo> ReadModuleBinaryInfo(absl::string_view bytes) {
  ModuleBinaryInfo info;
  if (bytes.size() >= 16 && ReadU32(bytes, 0) == kFatbinMagic) {
    info.fatbin = true;
    return info;
  }
  if (bytes.size() < 64 ||
      bytes.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      bytes[4] != 2 /*ELFCLASS64*/) {
    return absl::InvalidArgumentError(
        "code: not a cubin (64-bit ELF) or a fatbin: the header's magic bytes do not match");
  }
  const auto os_abi = static_cast<unsigned char>(bytes[7]);
  if (ReadU16(bytes, 18) != kElfMachineCuda ||
      (os_abi != kElfCudaOsAbi && os_abi != kElfCudaOsAbiV2)) {
    return absl::InvalidArgumentError(absl::StrCat("code: an ELF file for machine ",
                                                   ReadU16(bytes, 18),
                                                   ", not a CUDA cubin (EM_CUDA = 190)"));
  }
  info.relocatable = ReadU16(bytes, 16) == kElfTypeRelocatable;
  const uint32_t flags = ReadU32(bytes, 48);
  // ELF ABI version 8 and up (CUDA 12.8+) keep the SM in bits 8..15; before, in bits 0..7.
  const auto abi_version = static_cast<unsigned char>(bytes[8]);
  info.sm = static_cast<int>(abi_version >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
  return info;
}

absl::Status CheckBinaryForArch(absl::string_view bytes, const SmArch& device) {
  KBENCH_ASSIGN_OR_RETURN(const ModuleBinaryInfo info, ReadModuleBinaryInfo(bytes));
  if (info.relocatable) {
    return absl::InvalidArgumentError(
        "code: a relocatable object (compiled with -rdc / -dc): it needs linking, and device-side "
        "launches need cudadevrt; compile without -rdc to an executable cubin");
  }
  if (info.fatbin) return absl::OkStatus();  // the driver picks the image; it names a miss
  const int major = info.sm / 10, minor = info.sm % 10;
  if (major == device.major && minor <= device.minor) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("code: the cubin is for sm_", info.sm, " but the target is ", device.ToString(),
                   ": a cubin runs only on its own major architecture; rebuild it for ",
                   device.ToString(), " or submit PTX"));
}

}  // namespace kbench::kernels
