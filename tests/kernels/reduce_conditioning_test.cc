// The reduce check judges a sum whose terms cancel against the magnitude its rounding error
// scales with (sqrt(sum x^2)), not against its own near-zero value: a correct f32 sum passes,
// a sum that drops a term or returns zero still fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/catalogue.h"
#include "kernels/check.h"

namespace kbench::kernels {
namespace {

// Terms that cancel: x and -x (shuffled), plus small noise, so the true sum is ~1e-3 while the
// terms are ~1.
std::vector<float> Cancelling(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x;
  for (size_t i = 0; i < n / 2; ++i) {
    const float v = u(rng);
    x.push_back(v);
    x.push_back(-v + 1e-6f * u(rng));
  }
  std::shuffle(x.begin(), x.end(), rng);
  return x;
}

struct Checked {
  CheckResult with_scale;
  CheckResult without_scale;
};

// Runs reduce's full_host on `x` (or takes `override` as its result) and checks it.
Checked CheckFullSum(const std::vector<float>& x, const float* override_result = nullptr) {
  const Operation* op = FindOperation("reduce");
  Problem p;
  p.op = "reduce";
  p.shape = {1, static_cast<int64_t>(x.size())};
  p.dtype = DType::kF32;
  p.variant = "full_host";
  HostTensors in64 = {std::vector<double>(x.begin(), x.end())};
  HostTensors ref = {std::vector<double>(1, 0.0)};
  HostTensors scale = {std::vector<double>(1, 0.0)};
  op->reference(p, in64, &ref);
  op->error_scale(p, in64, &scale);
  float sum = 0;
  if (override_result != nullptr) {
    sum = *override_result;
  } else {
    std::vector<float*> out = {&sum};
    op->host_runs.at("full_host")(p, {x.data()}, out);
  }
  const std::vector<double> got = {sum};
  return {CompareRelativeL2(got, ref[0], op->tolerance(p), scale[0]),
          CompareRelativeL2(got, ref[0], op->tolerance(p))};
}

TEST(ReduceConditioning, ACorrectSumOfCancellingTermsPasses) {
  int failed_without_scale = 0;
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const Checked c = CheckFullSum(Cancelling(1 << 20, seed));
    EXPECT_TRUE(c.with_scale.passed) << "seed " << seed << ": " << c.with_scale.detail;
    failed_without_scale += c.without_scale.passed ? 0 : 1;
  }
  // The old rule (relative to the sum itself) fails these correct sums: what this test guards.
  EXPECT_GT(failed_without_scale, 0);
}

TEST(ReduceConditioning, AWrongSumStillFails) {
  std::vector<float> x = Cancelling(1 << 20, 9);
  std::vector<float> dropped(x.begin() + 1, x.end());  // one term missing
  dropped.push_back(0.f);
  double dropped_sum = 0;
  for (float v : dropped) dropped_sum += v;
  const float dropped_result = static_cast<float>(dropped_sum);
  EXPECT_FALSE(CheckFullSum(x, &dropped_result).with_scale.passed);
  double half = 0;
  for (size_t i = 0; i < x.size() / 2; ++i) half += x[i];
  const float half_result = static_cast<float>(half);
  EXPECT_FALSE(CheckFullSum(x, &half_result).with_scale.passed);
}

}  // namespace
}  // namespace kbench::kernels
