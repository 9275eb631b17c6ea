#!/usr/bin/env bash
# The whole test suite from scratch: install dependencies, build, run every test (GPU tests
# skip without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
ctest --preset release -j "$(nproc)"
