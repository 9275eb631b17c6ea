#!/usr/bin/env bash
# On the GPU host: the GPU proofs of issues 10 and 13 from a packed folder (tools/bench/pack.sh
# plus the gpu test binaries), each step bounded in time; logs under OUT_DIR.
#   1. user kernels through a real kbenchd (tests/gpu/user_kernel_gpu_test: the fused softmax
#      pasted into a .cu, as PTX and as cubin, interleaved with the built-in; a faulting and a
#      hanging kernel);
#   2. cheating kernels caught (tests/gpu/cheating_kernels_test);
#   3. a softmax sweep over cols 256..65536 with its report (docs/examples/);
#   4. Triton: the examples compiled by tools/triton and timed by kbench and by do_bench.
# usage: session_proofs.sh PACK_DIR OUT_DIR
set -uo pipefail
pack=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader

# The daemon-driving tests start kbenchd at the path it was built at (KBENCHD_PATH):
# BUILT_BIN, by default the build machine's build/release/bin.
built=${BUILT_BIN:-/work/main/build/release/bin}
if [[ ! -x "$built/kbenchd" ]]; then
  mkdir -p "$built"
  for b in kbenchd kbench-executor kbctl; do ln -sf "$pack/bin/$b" "$built/$b"; done
fi

step() { echo "== $1"; }
[[ -n "${ONLY:-}" && "$ONLY" != user ]] || {
step "user_kernel_gpu_test"
timeout 170 "$pack/bin/user_kernel_gpu_test" >"$out/user_kernel_gpu_test.log" 2>&1
echo "rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|RESULT" "$out/user_kernel_gpu_test.log"
}
[[ -n "${ONLY:-}" ]] || {
step "cheating_kernels_test"
timeout 100 "$pack/bin/cheating_kernels_test" >"$out/cheating_kernels_test.log" 2>&1
echo "rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|RESULT|floor|L2" "$out/cheating_kernels_test.log" | head -40
}

source "$(dirname "${BASH_SOURCE[0]}")/start_kbenchd.sh"
start_kbenchd "$pack" "$out"
kbctl() { timeout "${T:-60}" "$pack/bin/kbctl" "$@"; }

step "softmax sweep"
id=$(T=20 kbctl sweep softmax --variants naive,fused,online --axis cols=256:65536:*4 \
  --axis rows=4096 --device cuda:0 --min-time 0.1 --no-wait | head -1)
echo "sweep $id"
T=${SWEEP_WAIT:-200} kbctl watch "$id" | tail -12
sleep 3  # the report is written once the last point ends
T=30 kbctl sweep get "$id" --dir "$out/softmax-sweep" && ls "$out/softmax-sweep"

[[ -n "${ONLY:-}" ]] && exit 0
step "triton"
for ex in vector_add softmax_row; do
  timeout 60 python3 tools/triton/compile_for_kbench.py "tools/triton/examples/$ex.py" \
    --dtype f32 --arch 90 --out-dir "$out/triton_$ex" >"$out/triton_$ex.compile.log" 2>&1
  echo "compile $ex rc=$?"; tail -3 "$out/triton_$ex.compile.log"
done
T=60 kbctl compare add --variants vectorized --source "$out/triton_vector_add/kernel.json" \
  --name @triton_add --shape 16777216 --dtype f32 --device cuda:0 --mode cold
timeout 60 python3 tools/triton/do_bench_peer.py tools/triton/examples/vector_add.py \
  --shape 16777216 --dtype f32
T=60 kbctl compare softmax --variants fused --source "$out/triton_softmax_row/kernel.json" \
  --name @triton_softmax --shape 4096x4096 --dtype f32 --device cuda:0 --mode cold
timeout 60 python3 tools/triton/do_bench_peer.py tools/triton/examples/softmax_row.py \
  --shape 4096 4096 --dtype f32
