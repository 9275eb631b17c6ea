#!/usr/bin/env bash
# Packs everything tools/gpu/owed_proofs.sh needs on the GPU host into one compressed file the
# device tool can carry (64 MiB limit): kbenchd, kbench-executor, kbctl and their libraries
# (tools/bench/pack.sh), the gpu test binaries, and gnuplot and jq with their own libraries
# behind wrappers (the GPU host has neither; their libraries stay off kbench's path).
# usage: pack_all.sh BUILD_DIR OUT_FILE   (default build/release .carry/gpu.tar.xz)
set -euo pipefail
build=${1:-build/release}
out=${2:-.carry/gpu.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tools/bench/pack.sh "$build" "$stage/p" >/dev/null
for t in tests/server/executor/measure/measure_test tests/gpu/cuda_host_test tests/gpu/cuda_harness_test \
         tests/gpu/cheating_kernels_test tests/gpu/user_kernel_gpu_test \
         tests/kernels/cuda_variants_gpu_test tests/server/executor/profile/profile_gpu_test \
         tests/server/metrics/nvml_gpu_test tests/gpu/collectives_gpu_test bin/kbench-collectives-bench; do
  strip -o "$stage/p/bin/$(basename "$t")" "$build/$t"
done
ldd "$stage"/p/bin/*_test "$stage"/p/bin/kbench-collectives-bench | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libgcc_s|libstdc\+\+|libz)\.so|/usr/local/cuda' |
  while read -r lib; do cp -nL "$lib" "$stage/p/lib/"; done
# The agreement panel's softmax (tools/bench/agreement/run.sh): one cubin that kbench and its
# peers both run, for the GPU hosts' sm_90 (H100, H200).
mkdir -p "$stage/p/share"
/usr/local/cuda/bin/nvcc -cubin -O3 -arch sm_90 -o "$stage/p/share/my_softmax_sm90.cubin" \
  examples/my_softmax.cu
mkdir -p "$stage/p/tools" "$stage/p/tools/lib"
for tool in gnuplot jq; do
  real=$(readlink -f "$(command -v $tool)")
  cp "$real" "$stage/p/tools/$tool.bin"
  ldd "$real" | awk '/=> \//{print $3}' |
    grep -vE '/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+)\.so' |
    while read -r lib; do cp -nL "$lib" "$stage/p/tools/lib/"; done
  printf '#!/bin/sh\nd=$(dirname "$0")\nLD_LIBRARY_PATH="$d/lib" exec "$d/%s.bin" "$@"\n' \
    "$tool" >"$stage/p/tools/$tool"
  chmod +x "$stage/p/tools/$tool"
done
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cJf "$out" p
ls -la "$out"
