// reference_dump: runs every catalogue operation's float64 reference on seeded random inputs of
// odd shapes and writes inputs, parameters, outputs and the cost model's counts to a directory,
// for tests/oracle/oracle_test.py to recompute with NumPy (issue 16, item 1).
//
// Usage: reference_dump <output-directory>
// Writes <dir>/manifest.json and one raw little-endian float64 file per tensor. Exits non-zero
// when an operation of the catalogue has no oracle case here (or a case names an unknown one).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "kernels/dtype.h"
#include "kernels/operation.h"
#include "kernels/random.h"
#include "nlohmann/json.hpp"

namespace kbench::kernels {
namespace {

static_assert(std::endian::native == std::endian::little, "the dump is raw little-endian");

// One problem shape (and integer parameters) of an operation.
struct OracleCase {
  std::vector<int64_t> shape;
  std::map<std::string, int64_t> params = {};
};

// Odd shapes per operation: a single element, primes, 1xN and Nx1, and a couple of ordinary
// sizes, kept small so the NumPy side runs in seconds. Keyed by name: an operation added to the
// catalogue without an entry here fails the dump (CheckEveryOperationHasCases), never skipped.
const std::map<std::string, std::vector<OracleCase>>& OracleCases() {
  static const auto* cases = [] {
    const std::vector<OracleCase> elementwise = {{{1}},     {{2}},       {{97}},         {{1, 31}},
                                                 {{31, 1}}, {{3, 5, 7}}, {{2, 3, 5, 7}}, {{4099}}};
    const std::vector<OracleCase> rows_cols = {{{1, 1}},    {{1, 97}},   {{97, 1}},
                                               {{13, 257}}, {{64, 128}}, {{5, 1031}}};
    return new std::map<std::string, std::vector<OracleCase>>{
        {"copy", elementwise},
        {"square", elementwise},
        {"add", elementwise},
        {"gelu", elementwise},
        {"softmax", rows_cols},
        {"reduce", rows_cols},
        {"matmul",
         {{{1, 1, 1}}, {{1, 37, 5}}, {{37, 1, 41}}, {{13, 17, 1}}, {{7, 11, 13}}, {{64, 48, 80}}}},
        {"mlp",
         {{{1, 1}, {{"layers", 1}, {"steps", 1}}},
          {{1, 7}, {{"layers", 2}, {"steps", 1}}},
          {{5, 1}, {{"layers", 3}, {"steps", 2}}},
          {{3, 13}, {{"layers", 2}, {"steps", 3}}},
          {{17, 11}, {{"layers", 1}, {"steps", 1}}},
          {{16, 32}, {{"layers", 4}, {"steps", 1}}}}},
    };
  }();
  return *cases;
}

// The collectives' references are per rank, from every rank's inputs: their known answers are
// tests/kernels/collectives_test.cc's, not this one-device dump's.
bool OneDevice(const Operation& op) { return op.min_devices <= 1; }

absl::Status CheckEveryOperationHasCases() {
  std::vector<std::string> missing, unknown;
  for (const Operation& op : Catalogue()) {
    if (OneDevice(op) && !OracleCases().contains(op.name)) missing.push_back(op.name);
  }
  for (const auto& [name, cases] : OracleCases()) {
    if (FindOperation(name) == nullptr) unknown.push_back(name);
  }
  if (missing.empty() && unknown.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "oracle cases out of step with the catalogue: operations without cases [",
      absl::StrJoin(missing, ", "), "], cases for unknown operations [",
      absl::StrJoin(unknown, ", "), "]; add them to tests/oracle/reference_dump.cc and ",
      "tests/oracle/oracle_test.py"));
}

absl::Status WriteTensor(const std::filesystem::path& path, const std::vector<double>& values) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(values.data()),
          static_cast<std::streamsize>(values.size() * sizeof(double)));
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

// Inputs as the executors make them: UniformAt in float32 (never a zero-filled tensor), scaled by
// the layout's input_scale, then widened to float64 for the reference.
HostTensors SeededInputs(const Layout& layout, uint64_t seed) {
  HostTensors in;
  for (size_t t = 0; t < layout.inputs.size(); ++t) {
    auto& d = in.emplace_back(layout.inputs[t].elements);
    for (size_t i = 0; i < d.size(); ++i) {
      d[i] = UniformAt(seed, static_cast<uint32_t>(t), i, static_cast<float>(layout.input_scale));
    }
  }
  return in;
}

// The cost model's counts for every dtype the variant supports (bytes depend on storage size).
absl::StatusOr<nlohmann::json> CostsOf(const Operation& op, const Problem& base,
                                       const VariantDesc& variant) {
  nlohmann::json costs = nlohmann::json::array();
  for (DType dtype : variant.dtypes) {
    Problem p = base;
    p.dtype = dtype;
    KBENCH_RETURN_IF_ERROR(ValidateProblem(&p));
    const Cost c = op.cost(p);
    costs.push_back({{"dtype", DTypeName(dtype)}, {"bytes", c.bytes}, {"flops", c.flops}});
  }
  return costs;
}

// Runs one variant's reference (and its per-element reference, where the operation has one) on
// the case's inputs; writes its outputs and returns its manifest entry.
absl::StatusOr<nlohmann::json> DumpRun(const Operation& op, Problem p, const HostTensors& in,
                                       const std::filesystem::path& dir, const std::string& stem) {
  p.dtype = DType::kF32;
  const VariantDesc& variant = *op.FindVariant(p.variant);
  if (std::ranges::find(variant.dtypes, DType::kF32) == variant.dtypes.end())
    p.dtype = variant.dtypes.front();
  KBENCH_RETURN_IF_ERROR(ValidateProblem(&p));
  const Layout layout = op.layout(p);
  HostTensors out;
  for (const TensorSpec& t : layout.outputs) out.emplace_back(t.elements, 0.0);
  op.reference(p, in, &out);
  nlohmann::json run = {{"variant", p.variant}, {"outputs", nlohmann::json::array()}};
  for (size_t o = 0; o < out.size(); ++o) {
    const std::string file = absl::StrCat(stem, ".", p.variant, ".", layout.outputs[o].name);
    KBENCH_RETURN_IF_ERROR(WriteTensor(dir / file, out[o]));
    nlohmann::json entry = {{"name", layout.outputs[o].name}, {"file", file}};
    if (op.reference_element) {
      std::vector<double> by_element(out[o].size());
      for (size_t i = 0; i < by_element.size(); ++i) {
        by_element[i] = op.reference_element(p, in, o, static_cast<int64_t>(i));
      }
      KBENCH_RETURN_IF_ERROR(WriteTensor(dir / (file + ".element"), by_element));
      entry["element_file"] = file + ".element";
    }
    run["outputs"].push_back(entry);
  }
  KBENCH_ASSIGN_OR_RETURN(run["costs"], CostsOf(op, p, variant));
  return run;
}

// One case: seeded inputs written once, then every variant's reference run on them (gelu's and
// reduce's references follow the variant's name, so each variant is dumped).
absl::StatusOr<nlohmann::json> DumpCase(const Operation& op, const OracleCase& c, int index,
                                        const std::filesystem::path& dir) {
  Problem p{
      .op = op.name, .variant = op.variants.front().name, .shape = c.shape, .params = c.params};
  KBENCH_RETURN_IF_ERROR(ValidateProblem(&p));
  const Layout layout = op.layout(p);
  const uint64_t seed = 0x0DAC1E00u + static_cast<uint64_t>(index);
  const HostTensors in = SeededInputs(layout, seed);
  const std::string stem = absl::StrCat(op.name, "_", index);
  nlohmann::json entry = {{"op", op.name},
                          {"shape", p.shape},
                          {"params", p.params},
                          {"seed", seed},
                          {"input_scale", layout.input_scale},
                          {"inputs", nlohmann::json::array()},
                          {"runs", nlohmann::json::array()}};
  for (size_t t = 0; t < in.size(); ++t) {
    const std::string file = absl::StrCat(stem, ".in.", layout.inputs[t].name);
    KBENCH_RETURN_IF_ERROR(WriteTensor(dir / file, in[t]));
    entry["inputs"].push_back({{"name", layout.inputs[t].name}, {"file", file}});
  }
  for (const VariantDesc& v : op.variants) {
    p.variant = v.name;
    KBENCH_ASSIGN_OR_RETURN(nlohmann::json run, DumpRun(op, p, in, dir, stem));
    entry["runs"].push_back(std::move(run));
  }
  return entry;
}

absl::Status DumpAll(const std::filesystem::path& dir) {
  KBENCH_RETURN_IF_ERROR(CheckEveryOperationHasCases());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return absl::InternalError(absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
  nlohmann::json manifest = {{"operations", nlohmann::json::array()},
                             {"cases", nlohmann::json::array()}};
  int index = 0;
  for (const Operation& op : Catalogue()) {
    if (!OneDevice(op)) continue;
    manifest["operations"].push_back(op.name);
    for (const OracleCase& c : OracleCases().at(op.name)) {
      KBENCH_ASSIGN_OR_RETURN(nlohmann::json entry, DumpCase(op, c, index++, dir));
      manifest["cases"].push_back(std::move(entry));
    }
  }
  std::ofstream f(dir / "manifest.json");
  f << manifest.dump(1) << "\n";
  if (!f)
    return absl::InternalError(absl::StrCat("cannot write ", (dir / "manifest.json").string()));
  return absl::OkStatus();
}

}  // namespace
}  // namespace kbench::kernels

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output-directory>\n", argv[0]);
    return 2;
  }
  const absl::Status s = kbench::kernels::DumpAll(argv[1]);
  if (!s.ok()) {
    std::fprintf(stderr, "reference_dump: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
