#!/bin/bash
# Packs the CUDA executor's test binaries (stripped) and the non-system, non-CUDA shared
# libraries they need into a folder that the device tool can carry (default .carry/harness).
set -euo pipefail
build=${1:-build/harness}
dest=${2:-.carry/harness}
mkdir -p "$dest/bin" "$dest/lib"
for t in tests/server/executor/measure/measure_test tests/gpu/cuda_host_test tests/gpu/cuda_harness_test \
         tests/gpu/cheating_kernels_test \
         tests/kernels/cuda_variants_gpu_test tests/server/executor/profile/profile_gpu_test \
         tests/server/metrics/nvml_gpu_test; do
  [[ -f "$build/$t" ]] && strip -o "$dest/bin/$(basename "$t")" "$build/$t"
done
# glibc, libstdc++ and the CUDA libraries are on the GPU host; everything else travels.
ldd "$dest"/bin/* | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libgcc_s|libstdc\+\+|libz)\.so|/usr/local/cuda' |
  while read -r lib; do cp -L "$lib" "$dest/lib/"; done
cp -L /usr/local/cuda/lib/libcupti.so.13 "$dest/lib/" 2>/dev/null || true
du -sh "$dest"
