// ReferenceAtPositions (issue 23): the reference a sealed sample is checked against, at the
// positions it read back. A pointwise operation's compact reference (only the inputs at the
// positions) must equal the full reference picked at them; others pick from the full one.
#include "server/executor/sealed_checks.h"

#include <gtest/gtest.h>

#include "kernels/catalogue.h"
#include "kernels/random.h"

namespace kbench::executor {
namespace {

kernels::HostTensors InputsOf(const kernels::Problem& p, uint64_t seed) {
  const kernels::Layout layout = kernels::FindOperation(p.op)->layout(p);
  kernels::HostTensors in;
  for (size_t t = 0; t < layout.inputs.size(); ++t) {
    std::vector<double>& v = in.emplace_back();
    for (int64_t i = 0; i < layout.inputs[t].elements; ++i) {
      v.push_back(kernels::UniformAt(seed, static_cast<uint32_t>(t), static_cast<uint64_t>(i),
                                     static_cast<float>(layout.input_scale)));
    }
  }
  return in;
}

kernels::HostTensors FullReference(const kernels::Problem& p, const kernels::HostTensors& in) {
  const kernels::Operation* op = kernels::FindOperation(p.op);
  const kernels::Layout layout = op->layout(p);
  kernels::HostTensors out;
  for (const auto& t : layout.outputs) out.emplace_back(t.elements, 0.0);
  op->reference(p, in, &out);
  return out;
}

TEST(ReferenceAtPositions, APointwiseOperationsCompactReferenceEqualsTheFullOneAtThePositions) {
  for (const char* op : {"add", "gelu", "square", "copy"}) {
    kernels::Problem p;
    p.op = op;
    p.variant = std::string(op) == "gelu" ? "erf_host" : "host_loop";
    if (std::string(op) == "copy") p.variant = "host_memcpy";
    p.shape = {100000};
    ASSERT_TRUE(kernels::FindOperation(op)->pointwise) << op;
    const kernels::HostTensors full_in = InputsOf(p, 42);
    const std::vector<std::vector<int64_t>> positions = {
        SealedPositions(7, 0, 0, 100000, kSealedPositions)};
    kernels::HostTensors compact_in;
    for (const std::vector<double>& v : full_in) {
      std::vector<double>& c = compact_in.emplace_back();
      for (const int64_t q : positions[0]) c.push_back(v[q]);
    }
    absl::StatusOr<Reference> ref = ReferenceAtPositions(p, compact_in, positions, 42);
    ASSERT_TRUE(ref.ok()) << op << ": " << ref.status();
    const kernels::HostTensors full = FullReference(p, full_in);
    ASSERT_EQ(ref->values[0].size(), positions[0].size()) << op;
    for (size_t k = 0; k < positions[0].size(); ++k) {
      ASSERT_EQ(ref->values[0][k], full[0][positions[0][k]]) << op << " at " << positions[0][k];
    }
  }
}

TEST(ReferenceAtPositions, PicksARowWiseOperationsFullReference) {
  kernels::Problem p;
  p.op = "softmax";
  p.variant = "host_rowwise";
  p.shape = {64, 256};
  const kernels::HostTensors in = InputsOf(p, 9);
  const std::vector<std::vector<int64_t>> positions = {
      SealedPositions(3, 1, 0, 64 * 256, kSealedPositions)};
  absl::StatusOr<Reference> ref = ReferenceAtPositions(p, in, positions, 9);
  ASSERT_TRUE(ref.ok()) << ref.status();
  const kernels::HostTensors full = FullReference(p, in);
  for (size_t k = 0; k < positions[0].size(); ++k) {
    ASSERT_EQ(ref->values[0][k], full[0][positions[0][k]]);
  }
  // A correct read-back passes; one element off fails.
  CheckedOutput got;
  got.outputs = {ref->values[0]};
  EXPECT_TRUE(CompareWithReference(*ref, got).passed());
  got.outputs[0][17] += 0.5;
  EXPECT_FALSE(CompareWithReference(*ref, got).passed());
}

}  // namespace
}  // namespace kbench::executor
