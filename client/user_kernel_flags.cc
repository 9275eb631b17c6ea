// User-kernel flags -> UserKernel.
#include "client/user_kernel_flags.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/contained_path.h"
#include "client/errors.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"

namespace kbench::client {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& flag, const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return UsageError(absl::StrCat(flag, ": cannot read '", path, "'"));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

absl::StatusOr<v1::UserKernelForm> FormOf(const UserKernelFlags& f) {
  std::string form = absl::AsciiStrToLower(f.form);
  if (form.empty()) {
    const std::string ext = std::filesystem::path(f.source).extension().string();
    if (ext == ".cu" || ext == ".cuh") form = "cuda";
    if (ext == ".ptx") form = "ptx";
    if (ext == ".cubin" || ext == ".fatbin") form = "cubin";
    if (ext == ".json") form = "triton";
    if (form.empty()) {
      return UsageError(absl::StrCat("--source: cannot tell the form of '", f.source,
                                     "' from its extension (.cu, .ptx, .cubin, .fatbin, .json); "
                                     "give --form cuda|ptx|cubin|triton"));
    }
  }
  if (form == "cuda") return v1::USER_KERNEL_FORM_CUDA;
  if (form == "ptx") return v1::USER_KERNEL_FORM_PTX;
  if (form == "cubin" || form == "fatbin") return v1::USER_KERNEL_FORM_CUBIN;
  if (form == "triton") return v1::USER_KERNEL_FORM_TRITON;
  return UsageError(absl::StrCat("--form: '", f.form, "' is not cuda, ptx, cubin or triton"));
}

// The Triton tool's metadata (tools/triton): the cubin's path (relative to the JSON file) or its
// base64, num_warps, shared memory and the trailing scratch pointers of Triton 3.x.
// The dims' and params' type in abi.params: all "i64" (kbench's ABI) or all "i32" (compiled
// with --specialize-for, as Triton's JIT would).
absl::Status ReadScalarType(const UserKernelFlags& f, const nlohmann::json& abi,
                            v1::TritonMetadata* t) {
  std::set<std::string> types;
  for (const nlohmann::json& p : abi.value("params", nlohmann::json::array())) {
    const std::string role = p.value("role", std::string());
    if (role == "dim" || role == "param") types.insert(p.value("type", std::string("i64")));
  }
  if (types.size() > 1 ||
      (types.size() == 1 && *types.begin() != "i64" && *types.begin() != "i32")) {
    return UsageError(
        absl::StrCat("--source: '", f.source, "': its dims and params must all be i64 or all i32"));
  }
  t->set_int32_scalars(types.size() == 1 && *types.begin() == "i32");
  return absl::OkStatus();
}

absl::Status ReadTritonMetadata(const UserKernelFlags& f, const std::string& text,
                                v1::UserKernel* uk) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return UsageError(absl::StrCat("--source: '", f.source, "' is not a JSON object"));
  }
  // tools/triton/compile_for_kbench.py writes format kbench-triton-cubin/1: binary.path,
  // shared_memory_bytes, abi.scratch_pointers and launch.grid; older flat keys still read.
  const nlohmann::json binary = j.value("binary", nlohmann::json::object());
  const nlohmann::json abi = j.value("abi", nlohmann::json::object());
  const std::string cubin =
      binary.value("path", j.value("cubin", j.value("cubin_path", std::string())));
  if (cubin.empty()) {
    return UsageError(absl::StrCat("--source: '", f.source, "' names no cubin file"));
  }
  for (const nlohmann::json& scratch : abi.value("scratch", nlohmann::json::array())) {
    if (scratch.value("bytes_per_program", int64_t{0}) > 0) {
      return UsageError(absl::StrCat("--source: '", f.source, "' needs Triton's ",
                                     scratch.value("name", std::string("scratch")),
                                     " memory, which kbench does not allocate"));
    }
  }
  KBENCH_ASSIGN_OR_RETURN(const std::filesystem::path cubin_path,
                          PathInside(std::filesystem::path(f.source).parent_path(), cubin,
                                     absl::StrCat("--source: '", f.source, "': its cubin path")));
  KBENCH_ASSIGN_OR_RETURN(std::string bytes, ReadFile("--source", cubin_path.string()));
  uk->set_code(std::move(bytes));
  v1::TritonMetadata* t = uk->mutable_triton();
  t->set_num_warps(j.value("num_warps", 4));
  t->set_shared_bytes(
      j.value("shared_memory_bytes", j.value("shared", j.value("shared_bytes", int64_t{0}))));
  t->set_trailing_null_pointers(
      abi.value("scratch_pointers", j.value("trailing_null_pointers", 0)));
  for (const nlohmann::json& name : abi.value("divisible_by_16", nlohmann::json::array())) {
    if (name.is_string()) t->add_divisible_by_16(name.get<std::string>());
  }
  KBENCH_RETURN_IF_ERROR(ReadScalarType(f, abi, t));
  // The grid the kernel was compiled for, unless --grid says otherwise.
  if (f.grid.empty()) {
    for (const nlohmann::json& g :
         j.value("launch", nlohmann::json::object()).value("grid", nlohmann::json::array())) {
      if (g.is_string()) uk->mutable_launch()->add_grid(g.get<std::string>());
    }
  }
  if (uk->entry().empty()) uk->set_entry(j.value("name", j.value("entry", std::string())));
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> SplitExpressions(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) {
    int depth = 0;
    std::string current;
    for (char c : item) {
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c == ',' && depth == 0) {
        out.push_back(std::string(absl::StripAsciiWhitespace(current)));
        current.clear();
        continue;
      }
      current += c;
    }
    out.push_back(std::string(absl::StripAsciiWhitespace(current)));
  }
  return out;
}

void AddUserKernelFlags(CLI::App* app, UserKernelFlags* f, bool compile) {
  CLI::Option* source = app->add_option(
      "--source", f->source, "Your kernel: .cu (NVRTC), .ptx, .cubin/.fatbin, or .json (Triton)");
  source->type_name("FILE");
  CLI::Option* entry =
      app->add_option("--entry", f->entry, "The __global__ function to launch")->type_name("NAME");
  if (compile) {
    source->required();
    app->add_option("--arch", f->arch, "Target architecture, e.g. sm_90a (or give --device)")
        ->type_name("sm_XX");
  } else {
    (void)entry;
  }
  app->add_option("--grid", f->grid,
                  "Grid as expressions over the dims and params, e.g. 'rows' or 'cdiv(n,256),1'")
      ->type_name("EXPR[,EXPR...]")
      ->allow_extra_args(false);
  app->add_option("--block", f->block, "Block, e.g. 256 or '32,8' (Triton: from num_warps)")
      ->type_name("EXPR[,EXPR...]")
      ->allow_extra_args(false);
  app->add_option("--smem", f->smem, "Dynamic shared memory bytes, an expression (default 0)")
      ->type_name("EXPR");
  app->add_option("--option", f->options,
                  "Compiler option, repeatable: -O3, --use_fast_math, -lineinfo, "
                  "-maxrregcount=N, -DNAME[=V], -std=c++20")
      ->type_name("OPT")
      ->allow_extra_args(false);
  app->add_option("--name", f->name, "Your variant's name in the results (default @user)")
      ->type_name("@NAME");
  app->add_option("--form", f->form, "cuda, ptx, cubin or triton (default: from the extension)")
      ->type_name("FORM");
  app->add_option("--cluster", f->cluster, "Thread-block cluster dims, e.g. 2,1,1 (sm_90+)")
      ->type_name("X[,Y,Z]");
}

absl::StatusOr<v1::UserKernel> BuildUserKernel(const UserKernelFlags& f) {
  v1::UserKernel uk;
  KBENCH_ASSIGN_OR_RETURN(const v1::UserKernelForm form, FormOf(f));
  uk.set_form(form);
  uk.set_entry(f.entry);
  uk.set_file_name(std::filesystem::path(f.source).filename().string());
  KBENCH_ASSIGN_OR_RETURN(std::string text, ReadFile("--source", f.source));
  if (form == v1::USER_KERNEL_FORM_TRITON) {
    KBENCH_RETURN_IF_ERROR(ReadTritonMetadata(f, text, &uk));
  } else {
    uk.set_code(std::move(text));
  }
  if (uk.entry().empty()) return UsageError("--entry: required (the kernel's name)");
  if (!f.name.empty()) uk.set_name(f.name[0] == '@' ? f.name : "@" + f.name);
  for (const std::string& g : SplitExpressions(f.grid)) uk.mutable_launch()->add_grid(g);
  for (const std::string& b : SplitExpressions(f.block)) uk.mutable_launch()->add_block(b);
  uk.mutable_launch()->set_dynamic_smem(f.smem);
  if (!f.cluster.empty()) {
    for (absl::string_view part : absl::StrSplit(f.cluster, ',')) {
      int v = 0;
      if (!absl::SimpleAtoi(part, &v)) {
        return UsageError(absl::StrCat("--cluster: '", f.cluster, "' is not like 2,1,1"));
      }
      uk.mutable_launch()->add_cluster(v);
    }
  }
  for (const std::string& o : f.options) uk.add_options(o);
  uk.set_arch(f.arch);
  return uk;
}

}  // namespace kbench::client
