#!/usr/bin/env bash
# On a host with several GPUs: independent GPU proofs side by side, one kbenchd per GPU, each
# seeing only its own GPU through CUDA_VISIBLE_DEVICES (so no two proofs share a device, and
# every proof's cuda:0 is its GPU). Device time counts the machine, not its GPUs: four proofs
# at once cost what one does.
#   GPU<g>="ACTION ACTION ..." for g = 0..7, run in order on that GPU, each bounded by BOUND s:
#     panel=CASE,CASE     issue 26's verdict panel over those cases (PANEL_F/_H/_R as
#                         issue26_proofs.sh takes them; a CASE as tools/bench/verdict_panel has it,
#                         with ';' for its ',')
#     explain             issue 26's explained regression
#     issue29=STEP,STEP   tools/gpu/issue29_proofs.sh's steps
#     agreement           tools/bench/agreement/run.sh (ROUNDS)
# usage: GPU0="panel=copy128:copy:vectorized:33554432" GPU1="explain" x4_proofs.sh PACK OUT
set -uo pipefail
pack=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
bound=${BOUND:-540}
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,temperature.gpu --format=csv,noheader

run_action() {  # GPU ACTION
  local g=$1 name=${2%%=*} arg=${2#*=}
  case $name in
    panel)
      STEPS=panel PANEL_CASES="$(tr ',;' ' ,' <<<"$arg")" PANEL_TIMEOUT=$((bound - 20)) \
        timeout "$bound" bash "$here/issue26_proofs.sh" "$pack" "$out/gpu$g" ;;
    explain) STEPS=explain timeout 150 bash "$here/issue26_proofs.sh" "$pack" "$out/gpu${g}_explain" ;;
    issue29) STEPS="$(tr ',' ' ' <<<"$arg")" timeout "$bound" \
               bash "$here/issue29_proofs.sh" "$pack" "$out/gpu${g}_issue29" ;;
    agreement) ROUNDS=${ROUNDS:-5} timeout "$bound" bash "$here/../bench/agreement/run.sh" \
                 "$pack" "$out/gpu${g}_agreement" ;;
    *) echo "x4_proofs: unknown action $2" ;;
  esac
}
for g in 0 1 2 3 4 5 6 7; do
  var=GPU$g
  [[ -n ${!var:-} ]] || continue
  (
    export CUDA_VISIBLE_DEVICES=$g
    for action in ${!var}; do echo "== gpu$g $action ($(date -u +%H:%M:%S))"; run_action "$g" "$action"; done
  ) >"$out/gpu$g.log" 2>&1 &
done
wait
for log in "$out"/gpu?.log; do echo "######## $log"; grep -v ' running on ' "$log" | tail -80; done
cat "$out"/gpu?/panel.jsonl >"$out/panel_all.jsonl" 2>/dev/null
if [[ -s $out/panel_all.jsonl ]]; then
  python3 "$here/../bench/verdict_panel/summary.py" "$out/panel_all.jsonl"
  python3 "$here/../bench/verdict_panel/summary.py" "$out/panel_all.jsonl" --markdown >"$out/panel_all.md"
fi
