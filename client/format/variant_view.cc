#include "client/format/variant_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/format/table.h"
#include "client/format/units.h"
#include "common/user_kernel_form_name.h"

namespace kbench::client {
namespace {

std::string Registered(const v1::RegisteredVariant& v) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixSeconds(v.create_time().seconds()),
                          absl::UTCTimeZone());
}

std::string Launch(const v1::LaunchConfig& launch) {
  std::string text = absl::StrCat("grid (", absl::StrJoin(launch.grid(), ", "), ")");
  if (launch.block_size() > 0)
    absl::StrAppend(&text, " block (", absl::StrJoin(launch.block(), ", "), ")");
  if (!launch.dynamic_smem().empty()) absl::StrAppend(&text, " smem ", launch.dynamic_smem());
  if (launch.cluster_size() > 0)
    absl::StrAppend(&text, " cluster (", absl::StrJoin(launch.cluster(), ", "), ")");
  return text;
}

}  // namespace

std::string RenderVariantList(const v1::ListVariantsResponse& list) {
  if (list.variants().empty()) return "No registered variants (kbctl variants add OP @NAME ...).\n";
  Table table({"OPERATION", "NAME", "FORM", "OWNER", "CODE", "SHA256", "REGISTERED (UTC)"});
  table.AlignRight(4);
  for (const v1::RegisteredVariant& v : list.variants()) {
    table.AddRow({v.operation(), v.name(), UserKernelFormName(v.form()), v.owner(),
                  FormatBytes(static_cast<double>(v.code_bytes())), v.sha256().substr(0, 12),
                  Registered(v)});
  }
  return table.Render();
}

std::string RenderVariant(const v1::RegisteredVariant& v) {
  FieldList fields;
  fields.Add("Variant", absl::StrCat(v.operation(), " ", v.name()));
  fields.Add("Owner", v.owner());
  fields.Add("Form", UserKernelFormName(v.form()));
  fields.Add("Code", absl::StrCat(FormatBytes(static_cast<double>(v.code_bytes())), ", sha256 ",
                                  v.sha256()));
  fields.Add("Registered", absl::StrCat(Registered(v), " UTC"));
  if (v.has_kernel()) {
    const v1::UserKernel& k = v.kernel();
    fields.Add("Entry", k.entry());
    if (!k.file_name().empty()) fields.Add("File", k.file_name());
    fields.Add("Launch", Launch(k.launch()));
    if (k.options_size() > 0) fields.Add("Options", absl::StrJoin(k.options(), " "));
  }
  return fields.Render();
}

}  // namespace kbench::client
