#!/usr/bin/env bash
# Configures and builds kbench into build/<preset> (default: release, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
if [[ -z "${CUDACXX:-}" && -x /usr/local/cuda/bin/nvcc ]]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi
# The layering check's File API query, before the first configure so that it already has its reply
# (CMake reads queries before configuring; the top-level CMakeLists.txt writes it too).
mkdir -p "build/$preset/.cmake/api/v1/query" && : >"build/$preset/.cmake/api/v1/query/codemodel-v2"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
