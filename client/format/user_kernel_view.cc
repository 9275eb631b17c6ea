// Compile results and user-module records as text.
#include "client/format/user_kernel_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/format/table.h"

namespace kbench::client {
namespace {

std::string Dims(const google::protobuf::RepeatedField<int64_t>& dims) {
  return absl::StrCat("(", absl::StrJoin(dims, ","), ")");
}

}  // namespace

std::string RenderCompileResult(const v1::CompileResult& c) {
  std::string out =
      absl::StrCat("Compiled for ", c.arch(), " by ", c.compiler(),
                   c.compiler_version().empty() ? "" : " " + c.compiler_version(),
                   absl::StrFormat(" in %.2f s", c.compile_seconds()), "\n", "  module sha256  ",
                   c.module_sha256(), "\n", "  options        ", absl::StrJoin(c.options(), " "),
                   "\n", "  PTX / cubin    ", c.ptx_bytes(), " / ", c.cubin_bytes(), " bytes",
                   c.sass_available() ? " (SASS in sass.txt)" : "", "\n\n");
  Table table({"KERNEL", "REGS", "SMEM STATIC", "SMEM DYN", "LOCAL", "SPILLS (ST/LD)",
               "MAX THREADS", "BLOCK", "OCCUPANCY"});
  for (const v1::KernelResources& k : c.kernels()) {
    table.AddRow(
        {k.entry(), absl::StrCat(k.registers_per_thread()), absl::StrCat(k.static_shared_bytes()),
         absl::StrCat(k.dynamic_shared_bytes()), absl::StrCat(k.local_bytes_per_thread()),
         absl::StrCat(k.spill_store_bytes(), "/", k.spill_load_bytes()),
         absl::StrCat(k.max_threads_per_block()),
         k.block_threads() > 0 ? absl::StrCat(k.block_threads()) : "-",
         k.block_threads() > 0 ? absl::StrFormat("%.0f%% (%s)", 100 * k.theoretical_occupancy(),
                                                 k.occupancy_limiter())
                               : "-"});
  }
  absl::StrAppend(&out, table.Render());
  if (!c.log().empty()) absl::StrAppend(&out, "\nCompiler log:\n", c.log(), "\n");
  return out;
}

std::string RenderUserModules(const v1::JobResult& result) {
  std::string out;
  for (const v1::VariantResult& v : result.variants()) {
    if (!v.has_user_module()) continue;
    const v1::UserModuleRecord& m = v.user_module();
    absl::StrAppend(&out, "  ", v.variant(), ": ", m.entry(), " sha256 ",
                    m.module_sha256().substr(0, 16), " grid ", Dims(m.grid()), " = [",
                    absl::StrJoin(m.launch().grid(), ", "), "] block ", Dims(m.block()), " smem ",
                    m.dynamic_smem_bytes(), "; ", m.compiler(), " ", m.compiler_version(), " ",
                    m.arch(), m.cache_hit() ? " (cached)" : "", "\n");
    if (m.has_sanitizer()) {
      const v1::SanitizerRecord& san = m.sanitizer();
      absl::StrAppend(&out, "    compute-sanitizer ", san.tool(), ": ", san.errors(), " errors (",
                      absl::StrFormat("%.1f", san.seconds()), " s; report: artifact ",
                      san.report_artifact(), ")\n");
    }
  }
  if (out.empty()) return out;
  return absl::StrCat("User kernels (what was timed):\n", out);
}

}  // namespace kbench::client
