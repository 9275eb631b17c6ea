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

# The second configuration compiles the same C++ with the same flags: ccache (inside build/,
# paths relative to the checkout) serves most of it from the first.
export CCACHE_DIR="$PWD/build/.ccache" CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi

scripts/check-format.sh

scripts/build.sh release
ctest --preset release "${ctest_args[@]}"

scripts/build.sh nocuda
ctest --preset nocuda "${ctest_args[@]}"

# Fuzzing, bounded: 10 s per target from the checked-in corpus (skipped without clang).
scripts/fuzz.sh 10
