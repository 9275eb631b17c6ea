// The odd shapes of the CUDA variants' GPU test, per operation (see odd_shapes.h).
#include "tests/kernels/odd_shapes.h"

namespace kbench::kernels {

std::vector<ShapeAndParams> OddShapes(const std::string& op, const std::string& variant) {
  if (op == "copy" || op == "square" || op == "add" || op == "gelu") {
    std::vector<ShapeAndParams> s = {{{1}, {}},       {{7}, {}},         {{37, 129}, {}},
                                     {{1, 4099}, {}}, {{4099, 1}, {}},   {{3, 5, 7, 11}, {}},
                                     {{1048583}, {}}, {{1024, 1024}, {}}};
    // Rows past grid.y's 65535 tiles of 16 exercise the 2-D kernel's row striding.
    if (variant == "naive_2d") s.push_back({{1100003, 1}, {}});
    return s;
  }
  if (op == "softmax") {
    return {{{1, 1}, {}},    {{1, 7}, {}},     {{7, 1}, {}},     {{3, 1000}, {}},
            {{5, 4099}, {}}, {{17, 1024}, {}}, {{33, 257}, {}},  {{1000, 31}, {}},
            {{9, 4096}, {}}, {{3, 32768}, {}}, {{2, 40000}, {}}, {{2, 65537}, {}}};
  }
  if (op == "reduce") {
    return {{{1, 1}, {}},     {{1, 7}, {}},      {{7, 1}, {}},     {{3, 1000}, {}},
            {{5, 4099}, {}},  {{17, 1024}, {}},  {{1000, 31}, {}}, {{2, 100003}, {}},
            {{4099, 33}, {}}, {{1, 1048583}, {}}};
  }
  if (op == "matmul") {
    return {{{1, 1, 1}, {}},        {{1, 37, 5}, {}},      {{37, 1, 41}, {}},
            {{33, 65, 17}, {}},     {{127, 131, 257}, {}}, {{1, 1, 1000}, {}},
            {{300, 200, 1}, {}},    {{128, 256, 64}, {}},  {{257, 129, 136}, {}},
            {{256, 512, 1024}, {}}, {{130, 300, 520}, {}}, {{64, 64, 1001}, {}}};
  }
  if (op == "mlp") {
    return {{{1, 1}, {{"layers", 1}, {"steps", 1}}},    {{1, 7}, {{"layers", 2}, {"steps", 1}}},
            {{5, 1}, {{"layers", 1}, {"steps", 2}}},    {{33, 17}, {{"layers", 3}, {"steps", 1}}},
            {{64, 128}, {{"layers", 2}, {"steps", 2}}}, {{131, 97}, {{"layers", 4}, {"steps", 1}}}};
  }
  return {};
}

}  // namespace kbench::kernels
