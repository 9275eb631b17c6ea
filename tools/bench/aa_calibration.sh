#!/usr/bin/env bash
# Calibrates kbctl diff's verdicts against a running kbenchd: N A/A pairs (the same spec twice)
# give the false SLOWER (and FASTER) rate; N pairs of the spec against a 1.03x larger problem
# give the power to detect a 3 % slowdown. On the cpu device the slower problem is a shape with
# 1.03x the rows; on a GPU, a copy of 1.03x the bytes.
#
# Usage: aa_calibration.sh [-n N] [-d DEVICE] [-t MIN_TIME_S] [-e MIN_EFFECT_PCT] [-o ROUNDS]
#   KBENCH_SERVER (or kbctl's context) names the daemon; KBCTL overrides the kbctl binary;
#   BENCH_ARGS adds bench flags (default "--timeout-s 2": each job samples 0.2 to 2 s).
#   -o ROUNDS appends each round, as it ends, to a JSON-lines file, and the summary covers every
#   round in it: a calibration longer than one sitting (200 rounds of ~12 s on an H100 outlast
#   a 10-minute device call) is run in parts against the same file. AA_GPU, where set, is
#   recorded in each round (the card's model and PCI bus id, when parts run on several cards).
# Prints one summary line per comparison kind and a JSON summary on the last line, with the
# one-sided 95 % Clopper-Pearson bounds of the false SLOWER rate (upper) and the power (lower).
# -n 0 -o ROUNDS only summarises the rounds in the file.
set -euo pipefail
n=50 device=cpu min_time=0.2 min_effect="" rounds=""
while getopts "n:d:t:e:o:" opt; do
  case $opt in
    n) n=$OPTARG ;;
    d) device=$OPTARG ;;
    t) min_time=$OPTARG ;;
    e) min_effect=$OPTARG ;;
    o) rounds=$OPTARG ;;
    *) echo "usage: $0 [-n N] [-d DEVICE] [-t MIN_TIME_S] [-e MIN_EFFECT_PCT] [-o ROUNDS]" >&2
       exit 2 ;;
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
if [[ -z $rounds ]]; then  # this call's rounds only
  rounds=$(mktemp)
  trap 'rm -f "$rounds"' EXIT
fi
touch "$rounds"

bench() {  # bench SHAPE -> job id
  "$kbctl" -o json bench "$op" --variant "$variant" --shape "$1" --device "$device" \
    --min-time "$min_time" ${BENCH_ARGS:---timeout-s 2} | jq -r '.job.id // .id'
}
verdict() {  # verdict BASELINE CANDIDATE -> "SAME|FASTER|SLOWER|UNSURE CHANGE_PERCENT"
  "$kbctl" -o json diff "$1" "$2" "${effect_flag[@]}" |
    jq -r '.variants[0] | "\(.verdict | sub("^VERDICT_"; "")) \(.change_percent)"'
}

start=$(date +%s)
for i in $(seq 1 "$n"); do
  a=$(bench "$base_shape"); b=$(bench "$base_shape"); c=$(bench "$slow_shape")
  read -r aa_v aa_change < <(verdict "$a" "$b")
  read -r slow_v slow_change < <(verdict "$a" "$c")
  jq -cn --arg device "$device" --arg op "$op" --arg shape "$base_shape" --arg aa "$aa_v" \
    --arg slow "$slow_v" --argjson aa_change "$aa_change" --argjson slow_change "$slow_change" \
    --arg jobs "$a $b $c" --arg at "$(date -u +%FT%TZ)" --arg gpu "${AA_GPU:-}" \
    '{at: $at, device: $device, op: $op, shape: $shape, aa: $aa, aa_change: $aa_change,
      slow: $slow, slow_change: $slow_change, jobs: $jobs}
     + (if $gpu == "" then {} else {gpu: $gpu} end)' >>"$rounds"
  if ((i % 10 == 0)); then
    echo "round $i/$n: $(jq -rs '"A/A \(map(.aa) | group_by(.) | map("\(.[0]) \(length)") |
      join(", ")); 1.03x \(map(.slow) | group_by(.) | map("\(.[0]) \(length)") | join(", "))"' \
      "$rounds") (all rounds in the file)" >&2
  fi
done
elapsed=$(($(date +%s) - start))
# Every round in the file, this call's and earlier ones'. The 95th percentile of |A/A change| is
# the smallest --min-effect that these A/A pairs would not have called a regression 95 % of the
# time: a calibrated threshold for this device.
/usr/bin/python3 - "$rounds" "$elapsed" <<'PY'
import json, math, sys


def binomial_cdf(k, n, p):  # P(X <= k) for X ~ Binomial(n, p)
    return sum(math.comb(n, i) * p**i * (1 - p)**(n - i) for i in range(k + 1))


def upper_95(k, n):
    """Clopper-Pearson one-sided 95 % upper bound of a rate seen k times in n: the largest p
    under which k or fewer would still happen 5 % of the time (bisection)."""
    if k >= n:
        return 1.0
    lo, hi = k / n, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if binomial_cdf(k, n, mid) > 0.05 else (lo, mid)
    return lo


def lower_95(k, n):  # the same bound from below: of the complement's upper bound
    return 1.0 - upper_95(n - k, n)


rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
n = len(rows)
count = lambda key, v: sum(1 for r in rows if r[key] == v)
changes = sorted(abs(float(r["aa_change"])) for r in rows)
p95 = changes[min(n - 1, int(0.95 * n))] if changes else None
first = rows[0] if rows else {}
print(f"A/A ({n} pairs, {first.get('op')} {first.get('shape')} on {first.get('device')}): "
      f"SAME {count('aa', 'SAME')} FASTER {count('aa', 'FASTER')} "
      f"SLOWER {count('aa', 'SLOWER')} UNSURE {count('aa', 'UNSURE')}")
print(f"1.03x ({n} pairs): SLOWER {count('slow', 'SLOWER')} SAME {count('slow', 'SAME')} "
      f"UNSURE {count('slow', 'UNSURE')} FASTER {count('slow', 'FASTER')}")
print(json.dumps({"pairs": n,
                  "false_slower_rate": count("aa", "SLOWER") / n if n else None,
                  "false_slower_upper_95": upper_95(count("aa", "SLOWER"), n) if n else None,
                  "false_faster_rate": count("aa", "FASTER") / n if n else None,
                  "aa_same_rate": count("aa", "SAME") / n if n else None,
                  "aa_unsure_rate": count("aa", "UNSURE") / n if n else None,
                  "power_slower_3pct": count("slow", "SLOWER") / n if n else None,
                  "power_lower_95": lower_95(count("slow", "SLOWER"), n) if n else None,
                  "slower_3pct_counts": {v: count("slow", v)
                                         for v in ("SLOWER", "SAME", "UNSURE", "FASTER")},
                  "aa_abs_change_p95_percent": p95,
                  "elapsed_seconds_this_call": int(sys.argv[2])}))
PY
