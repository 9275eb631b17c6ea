#!/usr/bin/env bash
# Issue 27's GPU check (docs/benchmarks.md § 26): what a user does through kbenchd is unchanged
# by the redesign. From a packed build folder (tools/gpu/pack_all.sh, unpacked: bin/ and lib/):
#   1. user kernels through a real kbenchd (tests/gpu/user_kernel_gpu_test: source, PTX, cubin,
#      a registered cubin, a faulting and a hanging kernel, compute-sanitizer, CUPTI and Nsight
#      Compute);
#   2. the cheating kernels (tests/gpu/cheating_kernels_test);
#   3. the profiler (profile_gpu_test).
# Each step is bounded in time; logs under OUT_DIR. The daemon-driving test starts kbenchd at the
# path it was built at (/work/main/build/release/bin, linked to the pack's programs when absent).
# usage: redesign_check.sh PACK_DIR OUT_DIR
set -uo pipefail
# shellcheck source=tools/gpu/proof_common.sh
source "$(dirname "$0")/proof_common.sh"
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/usr/local/cuda/extras/CUPTI/lib64"
built=${BUILT_BIN:-/work/main/build/release/bin}
if [[ ! -x "$built/kbenchd" ]]; then
  mkdir -p "$built"
  for b in kbenchd kbench-executor kbctl; do ln -sf "$pack/bin/$b" "$built/$b"; done
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader

run_test() {  # NAME SECONDS [gtest args...]
  local name=$1 seconds=$2
  shift 2
  step "$name"
  timeout "$seconds" "$pack/bin/$name" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "rc=$rc"
  grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]" "$out/$name.log"
  ((rc == 0)) || status=1
}
run_test user_kernel_gpu_test 480
run_test cheating_kernels_test 150
run_test profile_gpu_test 120
exit $status
