#!/usr/bin/env bash
# On the GPU host: issue 26's GPU proofs from one packed folder (tools/gpu/pack_all.sh), each
# step bounded; logs under OUT_DIR.
#   panel    the verdict panel (tools/bench/verdict_panel): copy 128 MiB, the row softmax at 1
#            and 16 placements, a ~5 us cold softmax, an L2-resident hot copy, an sgemm; fresh-key
#            A/A, A/A with history, and a 3 % larger problem; rates with one-sided 95 % bounds
#   explain  an explained regression: tools/gpu/issue26/softmax_rows8k.cu against itself built
#            with -maxrregcount=32 (it spills), `kbctl diff --explain`
#   bisect   8 versions of that kernel, the 6th onwards with SLOW_PASS: `kbctl bisect`
#   ncu      every metric the executor asks Nsight Compute for is known to this ncu, and
#            `kbctl profile --ncu` fills them
# usage: STEPS="ncu panel explain bisect" issue26_proofs.sh PACK_DIR OUT_DIR
#   PANEL_F / PANEL_H / PANEL_R: fresh pairs, history jobs, rounds per case (default 6 8 6)
#   PANEL_CASES: the cases (default below)
set -uo pipefail
pack=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
steps=" ${STEPS:-panel explain bisect} "
want() { [[ $steps == *" $1 "* ]]; }
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
export PATH="$pack/tools:$PATH"  # gnuplot and jq wrappers
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv,noheader
step() { echo "== $1 ($(date -u +%H:%M:%S))"; }
source "$(dirname "${BASH_SOURCE[0]}")/start_kbenchd.sh"
start_kbenchd "$pack" "$out"
kbctl() { timeout "${T:-120}" "$pack/bin/kbctl" "$@"; }
src=tools/gpu/issue26/softmax_rows8k.cu
user=(--entry softmax_rows8k --grid rows --block 256 --shape 4096x8192 --device cuda:0)

if want ncu; then
  step "ncu: the metric names, then kbctl profile --ncu"
  ncu --query-metrics >"$out/ncu_metrics.txt" 2>&1 || true
  for m in gpu__time_duration dram__bytes_read dram__bytes_write lts__t_bytes \
           smsp__inst_executed launch__registers_per_thread \
           l1tex__t_bytes_pipe_lsu_mem_local_op_ld l1tex__t_bytes_pipe_lsu_mem_local_op_st \
           lts__t_sector_hit_rate sm__warps_active smsp__average_warps_issue_stalled_long_scoreboard; do
    grep -q "^$m " "$out/ncu_metrics.txt" && echo "known: $m" || echo "UNKNOWN: $m"
  done
  T=240 kbctl -o json profile softmax --variant fused --shape 4096x4096 --device cuda:0 --ncu \
    >"$out/ncu_profile.json" 2>"$out/ncu_profile.err"
  echo "profile --ncu rc=$?"; tail -3 "$out/ncu_profile.err"
  jq -c '.. | objects | select(has("ncu")) | .ncu' "$out/ncu_profile.json" 2>/dev/null | head -3
fi

if want explain; then
  step "explain: softmax_rows8k as is against -maxrregcount=32"
  kbctl -o json bench softmax --source "$src" --name @rows8k "${user[@]}" >"$out/explain_a.json"
  kbctl -o json bench softmax --source "$src" --name @rows8k "${user[@]}" \
    --option -maxrregcount=32 >"$out/explain_b.json"
  a=$(jq -r .id "$out/explain_a.json"); b=$(jq -r .id "$out/explain_b.json")
  jq -c '{id, state, median: .result.variants[0].stats.median_seconds}' "$out/explain_a.json" \
    "$out/explain_b.json"
  # A fresh key is UNSURE below ~10x by design (docs/verdicts.md), so explain every variant.
  T=300 kbctl diff "$a" "$b" --explain-all 2>&1 | tee "$out/explain.txt"
  T=300 kbctl -o json diff "$a" "$b" --explain-all >"$out/explain.json" 2>"$out/explain.err"
  echo "diff --explain -o json rc=$?"
fi

if want bisect; then
  step "bisect: 8 versions of softmax_rows8k, SLOW_PASS from v5"
  versions=()
  for v in 0 1 2 3 4 5 6 7; do
    f=$out/rows8k_v$v.cu
    { echo "// version $v"; [[ $v -ge 5 ]] && echo "#define SLOW_PASS 1"; cat "$src"; } >"$f"
    versions+=("$f")
  done
  list=$(IFS=,; echo "${versions[*]}")
  # Each step is one job of interleaved pairs; --timeout-s bounds its sampling (default 15 s).
  # shellcheck disable=SC2086
  T=540 kbctl bisect softmax --versions "$list" "${user[@]}" ${BISECT_FLAGS:-} >"$out/bisect.txt" 2>&1
  grep -v ' running on ' "$out/bisect.txt"
  echo "bisect rc=${PIPESTATUS[0]}"
fi

if want panel; then
  step "panel"
  cases=${PANEL_CASES:-"copy128:copy:vectorized:33554432 softmax1:softmax:fused:4096x4096 softmax16:softmax:fused:4096x4096:--placements,16 cold5us:softmax:fused:256x1024 hotl2:copy:vectorized:1048576:--mode,hot sgemm:matmul:cublas:2048x2048x2048"}
  # shellcheck disable=SC2086
  KBCTL="$pack/bin/kbctl" timeout "${PANEL_TIMEOUT:-540}" bash tools/bench/verdict_panel/run.sh \
    -d cuda:0 -f "${PANEL_F:-6}" -H "${PANEL_H:-8}" -r "${PANEL_R:-6}" -o "$out/panel.jsonl" \
    $cases 2>&1 | tail -80
  python3 tools/bench/verdict_panel/summary.py "$out/panel.jsonl"
  python3 tools/bench/verdict_panel/summary.py "$out/panel.jsonl" --markdown >"$out/panel.md"
fi
