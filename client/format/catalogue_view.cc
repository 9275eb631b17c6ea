// Kernel catalogue and device views for kbctl's table output.
#include "client/format/catalogue_view.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/args.h"
#include "client/format/table.h"
#include "client/format/units.h"

namespace kbench::client {
namespace {

std::string DTypes(const google::protobuf::RepeatedField<int>& dtypes) {
  std::vector<std::string> names;
  for (int d : dtypes) names.push_back(DTypeName(static_cast<v1::DType>(d)));
  return names.empty() ? "-" : absl::StrJoin(names, ",");
}

std::string DeviceKinds(const google::protobuf::RepeatedField<int>& kinds) {
  std::vector<std::string> names;
  for (int k : kinds) names.push_back(DeviceKindName(static_cast<v1::DeviceKind>(k)));
  return names.empty() ? "-" : absl::StrJoin(names, ",");
}

std::string DefaultShape(const v1::KernelInfo& k) {
  return ShapeString({k.default_shape().begin(), k.default_shape().end()});
}

}  // namespace

std::string RenderKernelsTable(const v1::ListKernelsResponse& kernels) {
  Table table({"OPERATION", "VARIANTS", "DIMS", "DEFAULT-SHAPE", "DTYPES"});
  table.SetMaxWidth(1, 60);
  for (const v1::KernelInfo& k : kernels.kernels()) {
    std::vector<std::string> variants;
    for (const v1::VariantInfo& v : k.variants()) variants.push_back(v.name());
    table.AddRow({k.name(), absl::StrJoin(variants, ","), absl::StrJoin(k.dims(), " x "),
                  DefaultShape(k), DTypes(k.dtypes())});
  }
  return table.Render();
}

std::string RenderKernel(const v1::KernelInfo& k) {
  FieldList f;
  f.Add("Operation", k.name());
  if (!k.description().empty()) f.Add("Description", k.description());
  f.Add("Dims", absl::StrCat(absl::StrJoin(k.dims(), " x "), " (default ", DefaultShape(k), ")"));
  f.Add("DTypes", DTypes(k.dtypes()));
  if (!k.cost_model().empty()) f.Add("Cost model", k.cost_model());
  std::string out = f.Render();
  if (!k.params().empty()) {
    Table params({"PARAM", "MIN", "MAX", "DEFAULT", "DESCRIPTION"});
    for (size_t c = 1; c < 4; ++c) params.AlignRight(c);
    for (const v1::ParamInfo& p : k.params()) {
      params.AddRow({p.name(), absl::StrCat(p.min()), absl::StrCat(p.max()),
                     absl::StrCat(p.default_value()), p.description()});
    }
    absl::StrAppend(&out, "\nParameters (--param NAME=VALUE):\n", params.Render());
  }
  Table variants({"VARIANT", "DEVICES", "DTYPES", "DESCRIPTION"});
  for (const v1::VariantInfo& v : k.variants()) {
    variants.AddRow({v.name(), DeviceKinds(v.device_kinds()),
                     v.dtypes().empty() ? DTypes(k.dtypes()) : DTypes(v.dtypes()),
                     v.description()});
  }
  absl::StrAppend(&out, "\nVariants:\n", variants.Render());
  return out;
}

std::string RenderDevicesTable(const v1::ListDevicesResponse& devices) {
  // A fleet's devices carry their node's heartbeat; a single host's do not.
  bool fleet = false;
  for (const v1::DeviceInfo& d : devices.devices()) fleet = fleet || !d.node().empty();
  std::vector<std::string> columns = {"ID",        "KIND",   "NAME",    "STATE",   "CC",
                                      "UNITS",     "MEMORY", "L2",      "COPY-BW", "PEAK-F32",
                                      "PEAK-BF16", "QUEUE",  "RESTARTS"};
  if (fleet) columns.push_back("HEARTBEAT");
  Table table(columns);
  for (size_t c = 5; c < columns.size(); ++c) table.AlignRight(c);
  for (const v1::DeviceInfo& d : devices.devices()) {
    std::string units = "-";
    if (d.sm_count() > 0) {
      units = absl::StrCat(d.sm_count(), " SMs");
    } else if (d.cpu_threads() > 0) {
      units = absl::StrCat(d.cpu_threads(), " threads");
    }
    std::vector<std::string> row = {d.id(),
                                    DeviceKindName(d.kind()),
                                    d.name(),
                                    DeviceStateName(d.state()),
                                    d.compute_capability().empty() ? "-" : d.compute_capability(),
                                    units,
                                    d.memory_bytes() > 0 ? FormatBytes(d.memory_bytes()) : "-",
                                    d.l2_bytes() > 0 ? FormatBytes(d.l2_bytes()) : "-",
                                    FormatBandwidth(d.copy_bandwidth_bytes_per_second()),
                                    FormatFlops(d.peak_flops_f32()),
                                    FormatFlops(d.peak_flops_bf16()),
                                    absl::StrCat(d.queue_depth()),
                                    absl::StrCat(d.executor_restarts())};
    if (fleet) row.push_back(absl::StrCat(FormatElapsed(d.heartbeat_age_seconds()), " ago"));
    table.AddRow(row);
  }
  return table.Render();
}

}  // namespace kbench::client
