#!/usr/bin/env bash
# Configures and builds kbench into build/<preset> (default: release, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
if [[ -z "${CUDACXX:-}" && -x /usr/local/cuda/bin/nvcc ]]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
