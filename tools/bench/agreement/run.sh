#!/usr/bin/env bash
# The agreement table on the GPU host (issue 29, item 4): a fixed panel timed by kbench (cold,
# hot and graph modes) and by its peers (triton.testing.do_bench, do_bench_cudagraph, CUPTI
# kernel durations through torch.profiler) on the same device in one run, R rounds each (a
# round is one job, one do_bench call), then each timer's difference to do_bench with its 95 %
# interval (agreement_table.py) as markdown for docs/benchmarks.md.
#   panel: copy 1 GiB, sgemm 4096^3 (f32, no TF32), bf16 GEMM 8192^3 (cuBLAS), softmax 4096^2
#   (fused), a Triton kernel (tools/triton/examples/softmax_row.py, 4096^2; kbench runs its
#   ahead-of-time cubin, do_bench its JIT), and a ~5 us kernel (softmax 256x1024).
# usage: run.sh PACK_DIR OUT_DIR   (PACK_DIR from tools/gpu/pack_all.sh; ROUNDS default 10;
#   KBENCH_FLAGS: extra kbctl bench flags, e.g. "--timeout-s 2" to bound each job's sampling;
#   ONLY: a regex over the cases' titles, to split the panel between GPUs: each case is still
#   timed by kbench and its peers on one GPU)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pack=$(cd "$1" && pwd); out=$2; rounds=${ROUNDS:-10}
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
source "$(dirname "${BASH_SOURCE[0]}")/../../gpu/start_kbenchd.sh"
start_kbenchd "$pack" "$out"
kbctl() { timeout "${T:-300}" "$pack/bin/kbctl" "$@"; }
rounds_file=$out/rounds.jsonl
: >"$rounds_file"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu \
  --format=csv,noheader | tee "$out/gpu.txt"

# The Triton kernel's ahead-of-time cubin, as kbench takes it.
python3 tools/triton/compile_for_kbench.py tools/triton/examples/softmax_row.py --dtype f32 \
  --arch 90 --out-dir "$out/triton" >"$out/triton_compile.log" 2>&1 ||
  echo "agreement: the Triton kernel did not compile ($out/triton_compile.log)" >&2

# TITLE|KBCTL BENCH ARGS; the titles are peers.py's.
cases=(
  "copy 1 GiB|copy --variant vectorized --shape 268435456"
  "sgemm 4096^3|matmul --variant cublas --shape 4096x4096x4096 --dtype f32"
  "bf16 GEMM 8192^3|matmul --variant cublas --shape 8192x8192x8192 --dtype bf16"
  "softmax 4096^2|softmax --variant fused --shape 4096x4096"
  "Triton softmax_row 4096^2|softmax --source $out/triton/kernel.json --shape 4096x4096"
  "~5 us softmax 256x1024|softmax --variant fused --shape 256x1024"
)
for c in "${cases[@]}"; do
  title=${c%%|*}; args=${c#*|}
  [[ $title =~ ${ONLY:-.} ]] || continue
  for mode in cold hot graph; do
    for r in $(seq 0 $((rounds - 1))); do
      # shellcheck disable=SC2086
      median=$(kbctl -o json bench $args --device cuda:0 --mode "$mode" ${KBENCH_FLAGS:-} 2>>"$out/kbctl.log" |
        jq -r 'select(.state == "JOB_STATE_SUCCEEDED") | .result.variants[0].stats.median_seconds')
      jq -nc --arg c "$title" --arg m "kbench_$mode" --argjson r "$r" \
        --argjson s "${median:-0}" '{case: $c, method: $m, round: $r, seconds: $s}' \
        >>"$rounds_file"
    done
  done
done

python3 "$here/peers.py" --rounds "$rounds" --match "${ONLY:-.}" >>"$rounds_file" \
  2>"$out/peers.log"
# The Triton kernel under do_bench through its JIT: one median per round.
if [[ "Triton softmax_row 4096^2" =~ ${ONLY:-.} ]]; then
  python3 tools/triton/do_bench_peer.py tools/triton/examples/softmax_row.py --shape 4096 4096 \
    --dtype f32 --repeats "$rounds" 2>>"$out/peers.log" |
    jq -c '.repeat_medians_us | to_entries[] |
      {case: "Triton softmax_row 4096^2", method: "do_bench", round: .key, seconds: (.value * 1e-6)}' \
    >>"$rounds_file"
fi

python3 "$here/agreement_table.py" "$rounds_file" | tee "$out/agreement.md"
python3 "$here/agreement_table.py" "$rounds_file" --json >"$out/agreement.json"
