#!/usr/bin/env bash
# The control plane and the client link no CUDA library: neither the runtime, cuBLAS, CUPTI,
# NVRTC, the PTX/JIT compilers nor NVML (NVML is dlopen'ed at run time for the GPU gauges).
# usage: links_no_cuda_test.sh PROGRAM...
set -euo pipefail
status=0
for program in "$@"; do
  needed="$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
  resolved="$(ldd "$program" | awk '{print $1}')"
  cuda="$(printf '%s\n%s\n' "$needed" "$resolved" |
    grep -E '^lib(cuda|cudart|cublas|cublasLt|cupti|nvrtc|nvJitLink|nvptxcompiler|nvidia-ml)' || true)"
  # The CUDA runtime can also come in statically (cudart_static): look for its entry points.
  if nm "$program" 2>/dev/null | grep -qE ' [TtWw] (cudaMalloc|cudaLaunchKernel|cuInit)$'; then
    cuda="$cuda cudart_static"
  fi
  if [[ -n "${cuda// /}" ]]; then
    echo "FAIL: $(basename "$program") links CUDA libraries: $(echo $cuda)" >&2
    status=1
  else
    echo "$(basename "$program"): $(echo "$resolved" | wc -l) libraries, none of them CUDA's"
  fi
done
exit "$status"
