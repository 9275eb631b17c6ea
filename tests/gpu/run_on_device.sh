#!/bin/bash
# Runs the CUDA executor's tests on a GPU machine from a carried folder (bin/ and lib/, as
# packed by pack_for_device.sh); logs go to $OUT (or /tmp). Prints the measured numbers last.
set -o pipefail
dir=${1:-.carry/harness}
out=${OUT:-/tmp}
export LD_LIBRARY_PATH=$dir/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.applications.graphics,temperature.gpu,power.draw --format=csv
"$dir/bin/measure_test" > "$out/measure_test.log" 2>&1; echo "measure_test rc=$?"
"$dir/bin/cuda_host_test" > "$out/cuda_host_test.log" 2>&1; echo "cuda_host_test rc=$?"
"$dir/bin/cuda_harness_test" "${@:2}" > "$out/cuda_harness_test.log" 2>&1; rc=$?
echo "cuda_harness_test rc=$rc"
grep -E "^\[  (FAILED|PASSED|SKIPPED) " "$out/cuda_harness_test.log" | sort | uniq -c
grep -B2 -A8 "Failure" "$out/cuda_harness_test.log" | head -120
grep "RESULT" "$out/cuda_harness_test.log"
# The checks a cheating kernel cannot pass (issue 10, item 5).
"$dir/bin/cheating_kernels_test" > "$out/cheating_kernels_test.log" 2>&1; cheat_rc=$?
echo "cheating_kernels_test rc=$cheat_rc"
grep -E "^\[  (FAILED|PASSED|SKIPPED) " "$out/cheating_kernels_test.log" | sort | uniq -c
grep -B2 -A8 "Failure" "$out/cheating_kernels_test.log" | head -60
grep "RESULT" "$out/cheating_kernels_test.log"
[[ $rc -eq 0 ]] && rc=$cheat_rc
exit $rc
