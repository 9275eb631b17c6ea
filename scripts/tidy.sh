#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy's checks, warnings as errors) over kbench's CUDA-free sources —
# the control plane, the client, the catalogue and the executor's host side — using a build's
# compile_commands.json (default build/release). Usage: scripts/tidy.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
[[ -f "$build/compile_commands.json" ]] || { echo "tidy: no $build/compile_commands.json (build first)" >&2; exit 1; }
mapfile -t files < <(git ls-files 'server/*.cc' 'client/*.cc' 'kernels/*.cc' |
  grep -vE '^(server/executor/(cuda|profile)/|kernels/cuda/)')
# GCC-only warning flags in the compile commands are unknown to clang: not an error here.
run-clang-tidy -quiet -p "$build" -j "$(nproc)" -extra-arg=-Wno-unknown-warning-option \
  "${files[@]}"
