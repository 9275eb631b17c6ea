#!/usr/bin/env bash
# Issue 30's scheduling proof on a host with two GPUs, through a real kbenchd from a packed build
# folder (tools/gpu/pack_all.sh):
#   1. two multi-GPU all_reduce jobs (--gpus 2 and --devices cuda:1,cuda:0) and ten one-GPU copy
#      jobs, submitted together: every job must succeed, and no two jobs may have run on one device
#      at once (each job's start..finish on each of its devices, from kbctl's JSON);
#   2. a message-size sweep of all_reduce (nccl and one_shot, 8 KiB .. 256 MiB per rank, x4) on
#      both GPUs, with its table and HTML report (busbw per variant).
# NVLink multicast stays off (the executor sets NCCL_NVLS_ENABLE=0 itself; so does this script).
# usage: gang_proof.sh PACK_DIR OUT_DIR
set -uo pipefail
source "$(dirname "$0")/proof_common.sh"

source "$here/start_kbenchd.sh"
start_kbenchd "$pack" "$out"
"$kbctl" devices

step "1. two multi-GPU jobs and ten one-GPU jobs at once"
ids=()
submit() { ids+=("$("$kbctl" -o json "$@" --no-wait | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"); }
for i in $(seq 0 9); do
  submit bench copy --variant vectorized --shape 33554432 --device "cuda:$((i % 2))" \
    --timeout-s 2
  if ((i == 3)); then
    submit compare all_reduce --variants nccl,one_shot --shape 4194304 --gpus 2 --timeout-s 2
  fi
  if ((i == 6)); then
    submit compare all_reduce --variants nccl,two_shot --shape 1048576 --devices cuda:1,cuda:0 \
      --timeout-s 2
  fi
done
echo "submitted ${#ids[@]} jobs: ${ids[*]}"
for id in "${ids[@]}"; do "$kbctl" watch "$id" >/dev/null 2>&1 || true; done
for id in "${ids[@]}"; do "$kbctl" -o json get "$id"; done >"$out/gang_jobs.jsonl"
python3 - "$out/gang_jobs.jsonl" <<'EOF' || status=1
import json, sys
from datetime import datetime
text = open(sys.argv[1]).read()
jobs, dec, i = [], json.JSONDecoder(), 0
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    job, i = dec.raw_decode(text, i)
    jobs.append(job)
def t(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
held, bad = {}, 0
for j in jobs:
    spec = j["spec"]
    devices = spec.get("devices") or [j.get("device") or spec.get("device")]
    state = j["state"]
    print(f"{j['id']} {spec['kernel']:>10} {','.join(devices):>13} {state}"
          + (f" error: {j.get('error')}" if state != "JOB_STATE_SUCCEEDED" else ""))
    if state != "JOB_STATE_SUCCEEDED":
        bad += 1
        continue
    for d in devices:
        held.setdefault(d, []).append((t(j["start_time"]), t(j["finish_time"]), j["id"]))
overlaps = 0
for d, spans in held.items():
    spans.sort()
    for (s0, f0, a), (s1, f1, b) in zip(spans, spans[1:]):
        if s1 < f0:
            overlaps += 1
            print(f"OVERLAP on {d}: {a} until {f0:.3f}, {b} from {s1:.3f}")
print(f"{len(jobs)} jobs, {bad} not succeeded, {overlaps} overlaps on a device")
sys.exit(1 if bad or overlaps or len(jobs) != 12 else 0)
EOF
for j in "${ids[3]}" "${ids[7]}"; do "$kbctl" get "$j" | grep -E 'Devices|Bus bandwidth|Ranks|Median' ; done

step "2. a message-size sweep of all_reduce on both GPUs"
sweep=$("$kbctl" -o json sweep all_reduce --variants nccl,one_shot --gpus 2 \
  --axis count=2048:67108864:*4 --timeout-s 2 --no-wait |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])') || status=1
if [[ -n ${sweep:-} ]]; then
  "$kbctl" watch "$sweep" >/dev/null 2>&1
  "$kbctl" sweep get "$sweep" --dir "$out/sweep" | tail -30 || status=1
  "$kbctl" report "$sweep" -f "$out/sweep_report.html" || status=1
fi
exit $status
