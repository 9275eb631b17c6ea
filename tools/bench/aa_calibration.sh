#!/usr/bin/env bash
# Calibrates kbctl diff's verdicts against a running kbenchd: N A/A pairs (the same spec twice)
# give the false SLOWER (and FASTER) rate; N pairs of the spec against a 1.03x larger problem
# give the power to detect a 3 % slowdown. On the cpu device the slower problem is a shape with
# 1.03x the rows; on a GPU, a copy of 1.03x the bytes.
#
# Usage: aa_calibration.sh [-n N] [-d DEVICE] [-t MIN_TIME_S] [-e MIN_EFFECT_PCT]
#   KBENCH_SERVER (or kbctl's context) names the daemon; KBCTL overrides the kbctl binary;
#   BENCH_ARGS adds bench flags (default "--timeout-s 2": each job samples 0.2 to 2 s).
# Prints one summary line per comparison kind and a JSON summary on the last line.
set -euo pipefail
n=50 device=cpu min_time=0.2 min_effect=""
while getopts "n:d:t:e:" opt; do
  case $opt in
    n) n=$OPTARG ;;
    d) device=$OPTARG ;;
    t) min_time=$OPTARG ;;
    e) min_effect=$OPTARG ;;
    *) echo "usage: $0 [-n N] [-d DEVICE] [-t MIN_TIME_S] [-e MIN_EFFECT_PCT]" >&2; exit 2 ;;
  esac
done
kbctl=${KBCTL:-kbctl}
if [[ $device == cpu ]]; then
  op=square variant=host_loop base_shape=1000x1024 slow_shape=1030x1024  # 1.03x the elements
else
  op=copy variant=vectorized base_shape=33554432 slow_shape=34560512     # 1.03x the bytes
fi
effect_flag=()
[[ -n $min_effect ]] && effect_flag=(--min-effect "$min_effect")

bench() {  # bench SHAPE -> job id
  "$kbctl" -o json bench "$op" --variant "$variant" --shape "$1" --device "$device" \
    --min-time "$min_time" ${BENCH_ARGS:---timeout-s 2} | jq -r '.job.id // .id'
}
verdict() {  # verdict BASELINE CANDIDATE -> "SAME|FASTER|SLOWER|UNSURE CHANGE_PERCENT"
  "$kbctl" -o json diff "$1" "$2" "${effect_flag[@]}" |
    jq -r '.variants[0] | "\(.verdict | sub("^VERDICT_"; "")) \(.change_percent)"'
}

declare -A aa=([SAME]=0 [FASTER]=0 [SLOWER]=0 [UNSURE]=0)
declare -A slow=([SAME]=0 [FASTER]=0 [SLOWER]=0 [UNSURE]=0)
aa_changes=()
start=$(date +%s)
for i in $(seq 1 "$n"); do
  a=$(bench "$base_shape"); b=$(bench "$base_shape"); c=$(bench "$slow_shape")
  read -r v change < <(verdict "$a" "$b"); aa[$v]=$((aa[$v] + 1)); aa_changes+=("$change")
  read -r v change < <(verdict "$a" "$c"); slow[$v]=$((slow[$v] + 1))
  if ((i % 10 == 0)); then echo "pair $i/$n: A/A ${aa[*]@K}; 1.03x ${slow[*]@K}" >&2; fi
done
elapsed=$(($(date +%s) - start))
echo "A/A ($n pairs, $op $variant $base_shape on $device): SAME ${aa[SAME]} FASTER ${aa[FASTER]} SLOWER ${aa[SLOWER]} UNSURE ${aa[UNSURE]}"
echo "1.03x ($n pairs, $base_shape -> $slow_shape): SLOWER ${slow[SLOWER]} SAME ${slow[SAME]} UNSURE ${slow[UNSURE]} FASTER ${slow[FASTER]}"
# The 95th percentile of |A/A change| is the smallest --min-effect that these A/A pairs would
# not have called a regression 95 % of the time: a calibrated threshold for this device.
/usr/bin/python3 -c '
import json, sys
n = int(sys.argv[1]); aa = [int(x) for x in sys.argv[2:6]]; sl = [int(x) for x in sys.argv[6:10]]
changes = sorted(abs(float(x)) for x in sys.argv[11:])
p95 = changes[min(len(changes) - 1, int(0.95 * len(changes)))] if changes else None
print(json.dumps({"pairs": n, "false_slower_rate": aa[2] / n, "false_faster_rate": aa[1] / n,
                  "aa_same_rate": aa[0] / n, "aa_unsure_rate": aa[3] / n,
                  "power_slower_3pct": sl[2] / n, "slower_3pct_counts": {"SLOWER": sl[2],
                  "SAME": sl[0], "UNSURE": sl[3], "FASTER": sl[1]},
                  "aa_abs_change_p95_percent": p95, "elapsed_seconds": int(sys.argv[10])}))' \
  "$n" "${aa[SAME]}" "${aa[FASTER]}" "${aa[SLOWER]}" "${aa[UNSURE]}" \
  "${slow[SAME]}" "${slow[FASTER]}" "${slow[SLOWER]}" "${slow[UNSURE]}" "$elapsed" \
  "${aa_changes[@]}"
