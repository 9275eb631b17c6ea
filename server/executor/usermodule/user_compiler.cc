// NVRTC for CUDA C++, nvJitLink for PTX, the ELF reader for every cubin.
#include "server/executor/usermodule/user_compiler.h"

#include <dlfcn.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <openssl/sha.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "kernels/include_rules.h"
#include "server/executor/usermodule/cubin_resources.h"

#ifndef KBENCH_CUDA_INCLUDE_DIR
#define KBENCH_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace kbench::executor::usermodule {

std::string CudaIncludeDir() {
  const char* env = std::getenv("KBENCH_CUDA_INCLUDE_DIR");
  return env != nullptr && *env != '\0' ? env : KBENCH_CUDA_INCLUDE_DIR;
}

std::string CompilerLibraryDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::error_code ec;
  const std::filesystem::path lib = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? "" : lib.parent_path().string();
}

namespace {

// EDG's "catastrophic error: out of memory", ptxas's "Memory allocation failure": the compile
// met its address-space limit (RLIMIT_AS) inside the compiler, which reports instead of dying.
bool RanOutOfMemory(nvrtcResult r, const std::string& log) {
  return r == NVRTC_ERROR_OUT_OF_MEMORY || absl::StrContains(log, "out of memory") ||
         absl::StrContains(log, "Memory allocation failure");
}

absl::Status CompileError(absl::string_view compiler, absl::string_view log) {
  return absl::InvalidArgumentError(absl::StrCat("compile: ", compiler, " failed:\n", log));
}

// The user's allow-listed option as NVRTC spells it.
std::string NvrtcOption(const std::string& option) {
  absl::string_view o = option;
  if (o.size() == 3 && absl::StartsWith(o, "-O")) return absl::StrCat("--ptxas-options=", o);
  if (o == "-use_fast_math") return "--use_fast_math";
  if (absl::ConsumePrefix(&o, "-maxrregcount=")) return absl::StrCat("--maxrregcount=", o);
  return option;
}

// The user's option as nvJitLink spells it; INVALID_ARGUMENT for one that means nothing to PTX.
absl::StatusOr<std::vector<std::string>> JitLinkOptions(const std::string& option) {
  absl::string_view o = option;
  if (o.size() == 3 && absl::StartsWith(o, "-O")) return std::vector<std::string>{option};
  if (o == "-lineinfo" || o == "--generate-line-info") return std::vector<std::string>{"-lineinfo"};
  if (o == "--use_fast_math" || o == "-use_fast_math") {
    return std::vector<std::string>{"-ftz=true", "-prec-div=false", "-prec-sqrt=false"};
  }
  if (absl::ConsumePrefix(&o, "--maxrregcount=") || absl::ConsumePrefix(&o, "-maxrregcount=")) {
    return std::vector<std::string>{absl::StrCat("-maxrregcount=", o)};
  }
  for (const char* flag : {"ftz", "prec-div", "prec-sqrt"}) {
    if (absl::ConsumePrefix(&o, absl::StrCat("--", flag, "="))) {
      return std::vector<std::string>{absl::StrCat("-", flag, "=", o)};
    }
  }
  if (absl::ConsumePrefix(&o, "--fmad=")) return std::vector<std::string>{absl::StrCat("-fma=", o)};
  return absl::InvalidArgumentError(absl::StrCat(
      "options: '", option,
      "' applies to CUDA C++ source, not to PTX (PTX takes -O0..-O3, "
      "-lineinfo, --use_fast_math, -maxrregcount=N, --ftz=, --prec-div=, --prec-sqrt=, --fmad=)"));
}

std::string NvrtcLog(nvrtcProgram prog) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  nvrtcGetProgramLog(prog, log.data());
  log.resize(size - 1);
  return log;
}

absl::Status CompileCuda(const v1::UserKernel& uk, const kernels::SmArch& arch,
                         CompiledModule* out) {
  nvrtcProgram prog = nullptr;
  const std::string name = uk.file_name().empty() ? "user.cu" : uk.file_name();
  if (nvrtcCreateProgram(&prog, uk.code().c_str(), name.c_str(), 0, nullptr, nullptr) !=
      NVRTC_SUCCESS) {
    return absl::InternalError("compile: nvrtcCreateProgram failed");
  }
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(
      &prog, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  const std::string inc = CudaIncludeDir();
  std::vector<std::string> options = {absl::StrCat("--gpu-architecture=", arch.ToString()),
                                      absl::StrCat("-I", inc), absl::StrCat("-I", inc, "/cccl"),
                                      "--ptxas-options=-v"};
  bool has_std = false;
  for (const std::string& o : uk.options()) {
    options.push_back(NvrtcOption(o));
    has_std |= absl::StartsWith(o, "-std=");
  }
  if (!has_std) options.push_back("-std=c++17");
  // A C++ (mangled) entry is found through its name expression; extern "C" names are as given.
  const bool lower = !absl::StartsWith(uk.entry(), "_Z");
  if (lower) nvrtcAddNameExpression(prog, uk.entry().c_str());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  out->report.set_log(NvrtcLog(prog));
  for (const std::string& o : options) out->report.add_options(o);
  if (r != NVRTC_SUCCESS && RanOutOfMemory(r, out->report.log())) {
    return absl::ResourceExhaustedError("compile: NVRTC ran out of memory");
  }
  if (r != NVRTC_SUCCESS) {
    std::string log = out->report.log();
    if (absl::StrContains(log, "cudadevrt") || absl::StrContains(log, "relocatable")) {
      absl::StrAppend(&log,
                      "\n(device-side launches and relocatable device code are not "
                      "supported: the module is loaded alone, without cudadevrt)");
    }
    return CompileError(absl::StrCat("NVRTC (", nvrtcGetErrorString(r), ")"), log);
  }
  const char* lowered = nullptr;
  if (lower && nvrtcGetLoweredName(prog, uk.entry().c_str(), &lowered) == NVRTC_SUCCESS &&
      lowered != nullptr) {
    out->report.set_lowered_entry(lowered);
  } else {
    out->report.set_lowered_entry(uk.entry());
  }
  size_t size = 0;
  nvrtcGetPTXSize(prog, &size);
  out->ptx.resize(size);
  nvrtcGetPTX(prog, out->ptx.data());
  if (!out->ptx.empty() && out->ptx.back() == '\0') out->ptx.pop_back();
  nvrtcGetCUBINSize(prog, &size);
  out->cubin.resize(size);
  nvrtcGetCUBIN(prog, out->cubin.data());
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  out->report.set_compiler("nvrtc");
  out->report.set_compiler_version(absl::StrCat(major, ".", minor));
  return absl::OkStatus();
}

std::string JitLinkLog(nvJitLinkHandle h, bool errors) {
  size_t size = 0;
  if ((errors ? nvJitLinkGetErrorLogSize(h, &size) : nvJitLinkGetInfoLogSize(h, &size)) !=
          NVJITLINK_SUCCESS ||
      size <= 1) {
    return "";
  }
  std::string log(size, '\0');
  if (errors) {
    nvJitLinkGetErrorLog(h, log.data());
  } else {
    nvJitLinkGetInfoLog(h, log.data());
  }
  log.resize(size - 1);
  return log;
}

absl::Status CompilePtx(const v1::UserKernel& uk, const kernels::SmArch& arch,
                        CompiledModule* out) {
  std::vector<std::string> options = {absl::StrCat("-arch=", arch.ToString()), "-verbose"};
  for (const std::string& o : uk.options()) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<std::string> mapped, JitLinkOptions(o));
    options.insert(options.end(), mapped.begin(), mapped.end());
  }
  std::vector<const char*> argv;
  for (const std::string& o : options) {
    argv.push_back(o.c_str());
    out->report.add_options(o);
  }
  nvJitLinkHandle h = nullptr;
  if (nvJitLinkCreate(&h, static_cast<uint32_t>(argv.size()), argv.data()) != NVJITLINK_SUCCESS) {
    return absl::InternalError("compile: nvJitLinkCreate failed");
  }
  std::unique_ptr<nvJitLinkHandle, void (*)(nvJitLinkHandle*)> guard(
      &h, [](nvJitLinkHandle* p) { nvJitLinkDestroy(p); });
  const std::string name = uk.file_name().empty() ? "user.ptx" : uk.file_name();
  nvJitLinkResult r =
      nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, uk.code().data(), uk.code().size(), name.c_str());
  if (r == NVJITLINK_SUCCESS) r = nvJitLinkComplete(h);
  out->report.set_log(absl::StrCat(JitLinkLog(h, true), JitLinkLog(h, false)));
  if (r != NVJITLINK_SUCCESS) {
    return CompileError(absl::StrCat("nvJitLink (error ", static_cast<int>(r), ")"),
                        out->report.log());
  }
  size_t size = 0;
  nvJitLinkGetLinkedCubinSize(h, &size);
  out->cubin.resize(size);
  nvJitLinkGetLinkedCubin(h, out->cubin.data());
  out->ptx = uk.code();
  unsigned major = 0, minor = 0;
  nvJitLinkVersion(&major, &minor);
  out->report.set_compiler("nvjitlink");
  out->report.set_compiler_version(absl::StrCat(major, ".", minor));
  out->report.set_lowered_entry(uk.entry());
  return absl::OkStatus();
}

// ptxas -v's "N bytes spill stores, N bytes spill loads" after "Function properties for NAME".
void AddSpills(const std::string& log, v1::KernelResources* k) {
  bool in_function = false;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (absl::StrContains(line, "Function properties for")) {
      in_function = absl::EndsWith(absl::StripTrailingAsciiWhitespace(line), k->entry()) ||
                    absl::StrContains(line, absl::StrCat("'", k->entry(), "'"));
      continue;
    }
    if (!in_function || !absl::StrContains(line, "spill stores")) continue;
    for (absl::string_view part : absl::StrSplit(line, ',')) {
      std::vector<absl::string_view> words =
          absl::StrSplit(absl::StripAsciiWhitespace(part), ' ', absl::SkipEmpty());
      int64_t n = 0;
      for (size_t i = 0; i + 1 < words.size(); ++i) {
        if (!absl::SimpleAtoi(words[i], &n)) continue;
        if (absl::StrContains(part, "spill stores")) k->set_spill_store_bytes(n);
        if (absl::StrContains(part, "spill loads")) k->set_spill_load_bytes(n);
      }
    }
    in_function = false;
  }
}

// The cubin's kernels, the entry first; INVALID_ARGUMENT when the entry is not among them.
absl::Status DescribeKernels(const std::string& entry, CompiledModule* out) {
  KBENCH_ASSIGN_OR_RETURN(const std::vector<CubinKernel> kernels, ReadCubinKernels(out->cubin));
  std::vector<std::string> names;
  for (const CubinKernel& k : kernels) names.push_back(k.name);
  const auto found = std::find(names.begin(), names.end(), entry);
  if (found == names.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("entry: '", entry, "' is not a kernel of the module (its kernels: ",
                     names.empty() ? "none" : absl::StrJoin(names, ", "),
                     "); a C++ kernel needs extern \"C\" or its mangled name"));
  }
  std::vector<const CubinKernel*> ordered = {&kernels[found - names.begin()]};
  for (const CubinKernel& k : kernels) {
    if (k.name != entry) ordered.push_back(&k);
  }
  for (const CubinKernel* k : ordered) {
    v1::KernelResources* r = out->report.add_kernels();
    r->set_entry(k->name);
    r->set_registers_per_thread(k->registers_per_thread);
    r->set_static_shared_bytes(k->static_shared_bytes);
    r->set_local_bytes_per_thread(k->local_bytes_per_thread);
    r->set_max_threads_per_block(k->max_threads_per_block > 0 ? k->max_threads_per_block : 1024);
    AddSpills(out->report.log(), r);
  }
  return absl::OkStatus();
}

}  // namespace

std::string Sha256Hex(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  std::string hex;
  for (unsigned char c : digest) absl::StrAppendFormat(&hex, "%02x", c);
  return hex;
}

absl::StatusOr<CompiledModule> CompileUserKernel(const v1::UserKernel& uk,
                                                 const kernels::SmArch& arch) {
  KBENCH_RETURN_IF_ERROR(kernels::CheckEntryName(uk.entry()));
  for (const std::string& o : uk.options()) KBENCH_RETURN_IF_ERROR(kernels::CheckCompilerOption(o));
  KBENCH_RETURN_IF_ERROR(kernels::CheckSourceFileName(uk.file_name()));
  if (uk.form() == v1::USER_KERNEL_FORM_CUDA) {
    KBENCH_RETURN_IF_ERROR(kernels::CheckSourceIncludes(uk.code()));
  }
  CompiledModule out;
  out.report.set_arch(arch.ToString());
  out.report.set_module_sha256(Sha256Hex(uk.code()));
  const auto start = std::chrono::steady_clock::now();
  switch (uk.form()) {
    case v1::USER_KERNEL_FORM_CUDA:
      KBENCH_RETURN_IF_ERROR(CompileCuda(uk, arch, &out));
      break;
    case v1::USER_KERNEL_FORM_PTX:
      KBENCH_RETURN_IF_ERROR(CompilePtx(uk, arch, &out));
      break;
    case v1::USER_KERNEL_FORM_CUBIN:
    case v1::USER_KERNEL_FORM_TRITON:
      KBENCH_RETURN_IF_ERROR(kernels::CheckBinaryForArch(uk.code(), arch));
      out.cubin = uk.code();
      out.report.set_compiler("none");
      out.report.set_lowered_entry(uk.entry());
      break;
    default:
      return absl::InvalidArgumentError("form: must be CUDA, PTX, CUBIN or TRITON");
  }
  out.report.set_compile_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  out.report.set_ptx_bytes(static_cast<int64_t>(out.ptx.size()));
  out.report.set_cubin_bytes(static_cast<int64_t>(out.cubin.size()));
  KBENCH_ASSIGN_OR_RETURN(const kernels::ModuleBinaryInfo info,
                          kernels::ReadModuleBinaryInfo(out.cubin));
  if (info.fatbin) return out;  // its images are the driver's to pick; resources at load
  KBENCH_RETURN_IF_ERROR(DescribeKernels(out.report.lowered_entry(), &out));
  return out;
}

}  // namespace kbench::executor::usermodule
