#!/usr/bin/env bash
# The whole test suite from scratch: install dependencies, build and test kbench twice — with
# CUDA (the GPU host's build) and without (KBENCH_CUDA=OFF: what a machine with no CUDA toolkit
# builds: kbctl and a kbenchd serving the cpu device). GPU tests (label `gpu`) run where a device
# is present; elsewhere they are left out by label rather than started only to skip.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }
ctest_args=(-j "$(nproc)")
if ! has_gpu; then
  ctest_args+=(-LE gpu)
  echo "test.sh: no GPU on this machine: the tests labelled gpu are not run"
fi

scripts/build.sh release
ctest --preset release "${ctest_args[@]}"

scripts/build.sh nocuda
ctest --preset nocuda "${ctest_args[@]}"
