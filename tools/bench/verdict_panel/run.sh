#!/usr/bin/env bash
# The verdict's calibration panel on a real device (issue 26, item 5): for each case of the
# panel, against a running kbenchd and with default stopping criteria (what the history counts):
#   fresh   F A/A pairs, each on a key nobody has timed (the first dimension grown by i), so every
#           verdict is "the first pair of a fresh key": SLOWER/FASTER there is a false alarm;
#   history H jobs of the case's own key, the history later verdicts read;
#   rounds  R rounds of A, A again, and C (the first dimension x1.06 by default, SLOW_PERCENT:
#           time grows less than the work where a launch has fixed costs — 3 % more work measured
#           +2.5 % on an H100 copy — so the step is twice the default minimum effect): the A/A
#           verdict (a false alarm unless SAME or UNSURE) and the A/C verdict twice, at the
#           default --min-effect 3 ("slow") and at --min-effect 1 ("slow1", the same jobs: can
#           the history resolve a change under 3 %?). summary.py judges each A/C verdict by its
#           measured change: at least the minimum effect must be SLOWER, under it SAME is right.
# Each verdict is appended as one JSON line to ROUNDS (the case, the phase, kbctl diff's whole
# comparison); summary.py turns the file into rates with one-sided 95 % bounds.
#
# usage: run.sh [-d DEVICE] [-f F] [-H H] [-r R] -o ROUNDS CASE...
#   CASE: name:op:variant:shape[:flag,flag...], e.g. copy128:copy:vectorized:33554432
#         or softmax16:softmax:fused:4096x4096:--placements,16
#   KBENCH_SERVER (or kbctl's context) names the daemon; KBCTL overrides the kbctl binary;
#   T bounds each kbctl call in seconds (default 120).
set -euo pipefail
device=cpu fresh=8 history=10 rounds_n=8 out=""
while getopts "d:f:H:r:o:" opt; do
  case $opt in
    d) device=$OPTARG ;;
    f) fresh=$OPTARG ;;
    H) history=$OPTARG ;;
    r) rounds_n=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-d DEVICE] [-f F] [-H H] [-r R] -o ROUNDS CASE..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ -n $out && $# -gt 0 ]] || { echo "usage: $0 [-d DEVICE] [-f F] [-H H] [-r R] -o ROUNDS CASE..." >&2; exit 2; }
kbctl=${KBCTL:-kbctl}

# The shape with its first dimension replaced by f(first).
shape_with_first() {  # SHAPE NEW_FIRST
  local rest=${1#*x}
  [[ $rest == "$1" ]] && { echo "$2"; return; }
  echo "$2x$rest"
}

# Submits one benchmark and prints its job id ("" when it failed: the failure is logged).
bench() {  # OP VARIANT SHAPE FLAGS...
  local op=$1 variant=$2 shape=$3; shift 3
  local json
  json=$(timeout "${T:-120}" "$kbctl" -o json bench "$op" --variant "$variant" --shape "$shape" \
    --device "$device" "$@" 2>>"$out.log") || true
  jq -r 'select(.state == "JOB_STATE_SUCCEEDED") | .id' <<<"$json" 2>/dev/null || true
}

# Appends the verdict of A vs B as one line: {case, phase, round, comparison}.
record() {  # CASE PHASE ROUND A B [DIFF_FLAGS...]
  local cmp
  [[ -n $4 && -n $5 ]] || { echo "  $1 $2 $3: a job failed (see $out.log)"; return; }
  cmp=$(timeout "${T:-120}" "$kbctl" -o json diff "$4" "$5" "${@:6}" 2>>"$out.log") || true
  jq -c --arg c "$1" --arg p "$2" --argjson r "$3" --arg d "$device" \
    '{case: $c, phase: $p, round: $r, device: $d, comparison: .}' <<<"$cmp" >>"$out" 2>/dev/null ||
    echo "  $1 $2 $3: no comparison (see $out.log)"
  jq -r '.variants[0] | "  \(.verdict) \(.change_percent // 0 | tostring | .[0:6]) % (min effect \(.min_effect_percent // 0 | tostring | .[0:5]))"' \
    <<<"$cmp" 2>/dev/null | sed "s/^/$1 $2 $3:/" || true
}

for spec in "$@"; do
  IFS=: read -r name op variant shape flags <<<"$spec"
  IFS=, read -r -a extra <<<"${flags:-}"
  first=${shape%%x*}
  slow_first=$(( (first * (100 + ${SLOW_PERCENT:-6}) + 50) / 100 ))
  echo "== $name: $op $variant $shape ${extra[*]} on $device ($(date -u +%H:%M:%S))"
  for i in $(seq 1 "$fresh"); do
    s=$(shape_with_first "$shape" $((first + i)))
    a=$(bench "$op" "$variant" "$s" "${extra[@]}")
    b=$(bench "$op" "$variant" "$s" "${extra[@]}")
    record "$name" fresh "$i" "$a" "$b"
  done
  for i in $(seq 1 "$history"); do bench "$op" "$variant" "$shape" "${extra[@]}" >/dev/null; done
  slow=$(shape_with_first "$shape" "$slow_first")
  for i in $(seq 1 "$rounds_n"); do
    a=$(bench "$op" "$variant" "$shape" "${extra[@]}")
    a2=$(bench "$op" "$variant" "$shape" "${extra[@]}")
    c=$(bench "$op" "$variant" "$slow" "${extra[@]}")
    record "$name" aa "$i" "$a" "$a2"
    record "$name" slow "$i" "$a" "$c"
    record "$name" slow1 "$i" "$a" "$c" --min-effect 1
  done
done
