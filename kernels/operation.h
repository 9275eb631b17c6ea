// What the catalogue knows about one operation: parameters, variants, cost model, float64
// reference and host implementations. Plain C++: the control plane reads it without CUDA.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "kernels/dtype.h"

namespace kbench::kernels {

// Where a variant runs. kHost variants run on the cpu executor; kCuda variants are launched by
// functions registered in kernels/cuda/ (see cuda_variants.h), looked up by (op, variant).
enum class Backend { kHost, kCuda };

// One concrete problem: an operation, a variant, a shape and a dtype.
struct Problem {
  std::string op;
  std::string variant;
  std::vector<int64_t> shape;
  DType dtype = DType::kF32;
  // Integer parameters besides the shape (e.g. mlp's layers); validated against ParamDesc.
  std::map<std::string, int64_t> params;

  int64_t dim(size_t i) const { return shape.at(i); }
  int64_t param(const std::string& name) const { return params.at(name); }
};

// One tensor of a problem: a flat array of `elements` values of the problem's dtype.
struct TensorSpec {
  std::string name;
  int64_t elements = 0;
};

// The buffers a problem needs. Inputs are filled with seeded random values in
// [-input_scale, input_scale]; outputs are poisoned before a checked run.
struct Layout {
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  // Scratch memory the variant needs besides inputs and outputs (bytes).
  int64_t workspace_bytes = 0;
  double input_scale = 1.0;
};

// The roofline model of one launch: the fewest bytes that must cross device memory and the
// arithmetic that must be done.
struct Cost {
  int64_t bytes = 0;
  int64_t flops = 0;
};

struct ParamDesc {
  std::string name;
  std::string description;
  int64_t min = 1;
  int64_t max = 1;
  int64_t default_value = 1;
};

struct VariantDesc {
  std::string name;
  // One line saying what the variant teaches.
  std::string description;
  Backend backend = Backend::kHost;
  std::vector<DType> dtypes;
};

// Host buffers in float64, one vector per tensor of the Layout.
using HostTensors = std::vector<std::vector<double>>;

// Computes every output in float64 from the inputs (already rounded to the problem's dtype).
using ReferenceFn =
    std::function<void(const Problem&, const HostTensors& inputs, HostTensors* outputs)>;
// Computes one output element in float64; lets large problems (matmul) be checked on a sample.
using ReferenceElementFn =
    std::function<double(const Problem&, const HostTensors& inputs, size_t output, int64_t index)>;
// A host variant on f32 buffers laid out as in Layout.
using HostRunFn = std::function<void(const Problem&, const std::vector<const float*>& inputs,
                                     const std::vector<float*>& outputs)>;

struct Operation {
  std::string name;
  std::string description;
  // Names of the shape's dimensions, e.g. {"rows", "cols"}; {"elements..."}: any rank from 1
  // to 4, where only the element count matters (AnyRank).
  std::vector<std::string> dims;
  std::vector<int64_t> default_shape;
  std::vector<ParamDesc> params;
  std::vector<VariantDesc> variants;
  // What Cost counts, in words (shown by `kbctl kernels`).
  std::string cost_model;

  std::function<Layout(const Problem&)> layout;
  std::function<Cost(const Problem&)> cost;
  // Checks beyond rank/positivity/dtype that the generic validation does; may be empty.
  std::function<absl::Status(const Problem&)> validate;
  ReferenceFn reference;
  ReferenceElementFn reference_element;  // optional
  // Every tensor has the same element count and output element i depends only on the inputs'
  // elements i: a check at some positions needs only the inputs there (issue 23's sealed
  // samples read those back instead of every input).
  bool pointwise = false;
  // Optional, for outputs whose rounding error does not scale with the result itself (a sum
  // whose terms cancel): per output element, the magnitude its error scales with (float64, the
  // outputs' layout). The check then divides by max(|reference|, scale) element-wise.
  ReferenceFn error_scale;
  // Host implementations by variant name (kHost variants only).
  std::map<std::string, HostRunFn> host_runs;
  // Relative L2 tolerance per dtype: float32 arithmetic lands far under 1e-4.
  std::function<double(const Problem&)> tolerance;
  // The fewest devices a job of this operation holds: 2 for the collectives (issue 30), whose
  // jobs hold one device per rank; 1 for every one-device operation, which a multi-device job
  // cannot run.
  int32_t min_devices = 1;

  const VariantDesc* FindVariant(const std::string& variant) const;
};

// Whether `op` takes any rank from 1 to 4 (dims {"elements..."}).
inline bool AnyRank(const Operation& op) {
  return op.dims.size() == 1 && op.dims[0] == "elements...";
}

// Default relative-L2 tolerances by dtype, for operations with short reductions.
double DefaultTolerance(DType dtype);

}  // namespace kbench::kernels
