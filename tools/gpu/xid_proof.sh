#!/usr/bin/env bash
# Issue 29's Xid proof on a GPU host, through a real kbenchd from a packed build folder
# (tools/gpu/pack_all.sh): a long benchmark samples while another process faults on the same
# GPU (tools/gpu/xid/neighbour_fault.py: a store to an illegal address, an Xid 31); the job's
# clean stamp must count the Xid (xid_events >= 1, last_xid named) and say it is not clean, while
# the job itself succeeds (the fault was the neighbour's). A second job after it, with no fault
# during its window, must show xid_watched and 0 events.
# usage: xid_proof.sh PACK_DIR OUT_DIR
set -uo pipefail
source "$(dirname "$0")/proof_common.sh"
source "$here/start_kbenchd.sh"
start_kbenchd "$pack" "$out"

stamp_of() { "$kbctl" -o json get "$1" | jq -c '{state, stamp: .result.variants[0].clean_stamp}'; }

step "1. a neighbour faults while a benchmark samples"
id=$("$kbctl" -o json bench copy --variant vectorized --shape 67108864 --device cuda:0 \
  --min-time 6 --timeout-s 20 --no-wait | jq -r .id)
for _ in $(seq 1 100); do  # until it samples
  "$kbctl" -o json get "$id" | jq -e '.state == "JOB_STATE_RUNNING"' >/dev/null && break
  sleep 0.1
done
sleep 2
python3 "$here/xid/neighbour_fault.py" 2>&1 | tee "$out/neighbour.log"
"$kbctl" watch "$id" >/dev/null 2>&1 || true
stamp_of "$id" | tee "$out/faulted_window.json"
jq -e '.state == "JOB_STATE_SUCCEEDED" and .stamp.xid_watched and
  (.stamp.xid_events | tonumber) >= 1 and .stamp.clean != true' "$out/faulted_window.json" \
  >/dev/null || { echo "FAIL: the Xid was not counted"; status=1; }
"$kbctl" get "$id" | grep -E 'Conditions' | tee -a "$out/faulted_window.txt"

step "2. the next window, without a fault"
id=$("$kbctl" -o json bench copy --variant vectorized --shape 67108864 --device cuda:0 \
  --timeout-s 5 | jq -r .id)
stamp_of "$id" | tee "$out/quiet_window.json"
jq -e '.stamp.xid_watched and ((.stamp.xid_events // 0) | tonumber) == 0' "$out/quiet_window.json" \
  >/dev/null || { echo "FAIL: a quiet window counted an Xid or watched none"; status=1; }
echo "xid_proof: status $status"
exit $status
