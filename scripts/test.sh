#!/usr/bin/env bash
# The whole test suite from scratch: install dependencies, build and test kbench twice — with
# CUDA (the GPU host's build) and without (KBENCH_CUDA=OFF: what a machine with no CUDA toolkit
# builds: kbctl and a kbenchd serving the cpu device). GPU tests (label `gpu`) run where a device
# is present; elsewhere they are left out by label rather than started only to skip.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's wall time is printed, so a CI log shows where its 30 minutes go.
stage() { echo "test.sh: ${SECONDS} s elapsed; $*"; }
stage "installing dependencies"
scripts/install-deps.sh

has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }
ctest_args=(-j "$(nproc)")
excluded=fleet  # the nocuda run's exclusions (below)
if ! has_gpu; then
  ctest_args+=(-LE gpu)
  excluded="gpu|fleet"
  echo "test.sh: no GPU on this machine: the tests labelled gpu are not run"
fi

# The second configuration compiles the same C++ with the same flags: ccache (inside build/,
# paths relative to the checkout) serves most of it from the first.
# The test programs share a precompiled header (tests/CMakeLists.txt), which ccache caches only
# with this sloppiness.
export CCACHE_DIR="$PWD/build/.ccache" CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi

stage "checking format"
scripts/check-format.sh

stage "building release"
scripts/build.sh release
stage "testing release"
ctest --preset release "${ctest_args[@]}"

stage "building nocuda"
# Only the test programs this stage runs (tests/CMakeLists.txt, KBENCH_CONFIG_TESTS_ONLY).
cmake --preset nocuda -DKBENCH_CONFIG_TESTS_ONLY=ON >/dev/null
scripts/build.sh nocuda
# The nocuda run tests what its build changes: the `config` label (catalogue, executor, oracle,
# packaging, fuzz corpora) and a daemon's whole job lifecycle on its cpu-only kbench-executor.
# Every other test compiles from the same sources with the same flags in both builds and passed
# in the release run (whose executor serves the same cpu device here, no GPU): running them
# twice cost CI minutes it does not have (a fresh clone measured 17 min for the release build
# alone on a 2-core machine).
stage "testing nocuda"
ctest --preset nocuda -j "$(nproc)" -L config -LE "$excluded"
ctest --preset nocuda -j "$(nproc)" -R '^JobLifecycleTest\.'

# Fuzzing, bounded: 10 s per target from the checked-in corpus (skipped without clang). Its
# clang build (proto, catalogue, auth and validation compiled again with clang and sanitizers) is
# the one stage that can be left out: past 20 minutes (a CI run has 30, and that build's time on
# 2 cores has not been measured under 10 minutes) it is, with a line saying so, and
# scripts/fuzz.sh runs it on its own.
if ((SECONDS > 20 * 60)); then
  stage "fuzzing skipped: the run is past 20 minutes; run scripts/fuzz.sh separately"
else
  stage "fuzzing"
  scripts/fuzz.sh 10
fi
stage "done"
