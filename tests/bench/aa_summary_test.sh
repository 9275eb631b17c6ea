#!/usr/bin/env bash
# tools/bench/aa_calibration.sh's summary of committed rounds (-n 0 -o FILE runs no job): the
# counts and rates of docs/data/aa_h100_rounds.jsonl, and its Clopper-Pearson bounds against
# the closed form a zero count has (upper bound 1 - 0.05^(1/n)), and for one count in 200 the
# root of (1 - p)^200 + 200 p (1 - p)^199 = 0.05, p = 0.023498.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check() {  # check FILE PYTHON_ASSERTIONS
  cp "$1" "$work/rounds.jsonl"
  bash "$root/tools/bench/aa_calibration.sh" -n 0 -o "$work/rounds.jsonl" | tail -n 1 \
    >"$work/summary.json"
  /usr/bin/python3 -c "
import json, sys
s = json.load(open('$work/summary.json'))
$2
print('ok:', '$(basename "$1")', s['pairs'], s['false_slower_upper_95'], s['power_lower_95'])"
}
check "$root/docs/data/aa_h100_rounds.jsonl" "
n = sum(1 for line in open('$root/docs/data/aa_h100_rounds.jsonl') if line.strip())
assert s['pairs'] == n, s
assert s['false_slower_rate'] == 0 and s['power_slower_3pct'] == 1, s
assert abs(s['false_slower_upper_95'] - (1 - 0.05 ** (1 / n))) < 1e-9, s
assert abs(s['power_lower_95'] - 0.05 ** (1 / n)) < 1e-9, s"
# One false SLOWER in 200 rounds, every 1.03x round SAME.
for i in $(seq 1 200); do
  aa=SAME; ((i == 7)) && aa=SLOWER
  echo "{\"device\":\"cpu\",\"op\":\"square\",\"shape\":\"8x8\",\"aa\":\"$aa\",\"aa_change\":0.1,\"slow\":\"SAME\",\"slow_change\":0.2}"
done >"$work/one.jsonl"
check "$work/one.jsonl" "
assert s['pairs'] == 200 and s['false_slower_rate'] == 0.005, s
assert abs(s['false_slower_upper_95'] - 0.02350) < 5e-5, s
assert s['power_slower_3pct'] == 0 and s['power_lower_95'] == 0, s"
