#!/usr/bin/env bash
# The agreement table on the GPU host (issue 29, item 4): a fixed panel timed by kbench (cold,
# hot and graph modes) and by its peers (triton.testing.do_bench, do_bench_cudagraph, CUPTI
# kernel durations through torch.profiler) on the same device in one run, R rounds each (a
# round is one job, one do_bench call), then each timer's difference to do_bench with its 95 %
# interval (agreement_table.py) as markdown for docs/benchmarks.md.
#   panel: copy 1 GiB, sgemm 4096^3 (f32, no TF32), bf16 GEMM 8192^3 (cuBLAS), softmax 4096^2
#   and a ~5 us softmax 256x1024 (examples/my_softmax.cu's cubin: kbench runs it as a user
#   kernel, the peers launch the same cubin through the driver API), and a Triton kernel
#   (tools/triton/examples/softmax_row.py, 4096^2, its ahead-of-time cubin on both sides, each
#   round pooled over 16 buffer placements: this kernel's time spans ~15 % with where its
#   tensors sit, section 14 of docs/benchmarks.md, so one placement is one draw).
# Rounds alternate between kbench and its peers (kbench's round r, then the peers' round r),
# so that neither side meets a GPU hotter or nearer its power cap than the other.
# usage: run.sh PACK_DIR OUT_DIR   (PACK_DIR from tools/gpu/pack_all.sh; ROUNDS default 10;
#   KBENCH_FLAGS: extra kbctl bench flags, e.g. "--timeout-s 2" to bound each job's sampling;
#   ONLY: a regex over the cases' titles, to split the panel between GPUs: each case is still
#   timed by kbench and its peers on one GPU; SOFTMAX_CUBIN: default PACK_DIR/share/
#   my_softmax_sm90.cubin, or nvcc compiles examples/my_softmax.cu for this GPU)
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

# The softmax cubin both sides run.
cubin=${SOFTMAX_CUBIN:-$pack/share/my_softmax_sm90.cubin}
if [[ ! -s $cubin ]] && command -v nvcc >/dev/null; then
  cubin=$out/my_softmax.cubin
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  nvcc -cubin -O3 -arch "sm_$arch" -o "$cubin" examples/my_softmax.cu
fi
# The Triton kernel's ahead-of-time cubin, as kbench takes it.
python3 tools/triton/compile_for_kbench.py tools/triton/examples/softmax_row.py --dtype f32 \
  --arch 90 --out-dir "$out/triton" >"$out/triton_compile.log" 2>&1 ||
  echo "agreement: the Triton kernel did not compile ($out/triton_compile.log)" >&2

softmax="softmax --source $cubin --entry softmax_kernel --grid rows --block 256"
# TITLE|PEERS' CASE|KBENCH MODES|KBCTL BENCH ARGS; the titles are peers.py's.
cases=(
  "copy 1 GiB|copy1g|cold hot graph|copy --variant vectorized --shape 268435456"
  "sgemm 4096^3|sgemm4096|cold hot graph|matmul --variant cublas --shape 4096x4096x4096 --dtype f32"
  "bf16 GEMM 8192^3|bf16gemm8192|cold hot graph|matmul --variant cublas --shape 8192x8192x8192 --dtype bf16"
  "softmax 4096^2|softmax4096|cold hot graph|$softmax --shape 4096x4096"
  "Triton softmax_row 4096^2|triton|cold|softmax --source $out/triton/kernel.json --shape 4096x4096 --placements 16"
  "~5 us softmax 256x1024|tiny5us|cold hot graph|$softmax --shape 256x1024"
)

kbench_round() {  # TITLE MODES ARGS ROUND
  local mode median
  for mode in $2; do
    # shellcheck disable=SC2086
    median=$(kbctl -o json bench $3 --device cuda:0 --mode "$mode" ${KBENCH_FLAGS:-} 2>>"$out/kbctl.log" |
      jq -r 'select(.state == "JOB_STATE_SUCCEEDED") | .result.variants[0].stats.median_seconds')
    jq -nc --arg c "$1" --arg m "kbench_$mode" --argjson r "$4" \
      --argjson s "${median:-0}" '{case: $c, method: $m, round: $r, seconds: $s}' >>"$rounds_file"
  done
}

peers_round() {  # TITLE PEERS_CASE ROUND
  if [[ $2 == triton ]]; then
    # do_bench on the same ahead-of-time cubin at 16 placements drawn as kbench draws them (the
    # round is the placement seed): the median of the placements' medians.
    python3 tools/triton/do_bench_peer.py tools/triton/examples/softmax_row.py --shape 4096 4096 \
      --dtype f32 --aot --placements 16 --placement-seed "$(($3 + 1))" 2>>"$out/peers.log" |
      jq -c --arg c "$1" --argjson r "$3" \
        '{case: $c, method: "do_bench", round: $r, seconds: (.placements_median_us * 1e-6)}' \
      >>"$rounds_file"
  else
    python3 "$here/peers.py" --cases "$2" --rounds 1 --first-round "$3" \
      --softmax-cubin "$cubin" >>"$rounds_file" 2>>"$out/peers.log"
  fi
}

for c in "${cases[@]}"; do
  IFS='|' read -r title peer modes args <<<"$c"
  [[ $title =~ ${ONLY:-.} ]] || continue
  for r in $(seq 0 $((rounds - 1))); do
    kbench_round "$title" "$modes" "$args" "$r"
    peers_round "$title" "$peer" "$r"
  done
done

python3 "$here/agreement_table.py" "$rounds_file" | tee "$out/agreement.md"
python3 "$here/agreement_table.py" "$rounds_file" --json >"$out/agreement.json"
