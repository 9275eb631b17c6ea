#!/usr/bin/env bash
# Runs on the GPU host: starts kbenchd from a packed folder, runs the benchmark cases of
# CASES_FILE (lines NAME|PEER|KBCTL ARGS) with kbctl (JSON), then PyTorch's peers with triton.testing.do_bench in the same
# run, and writes everything under OUT_DIR. Usage: device_run.sh PACK_DIR CASES_FILE OUT_DIR
set -euo pipefail
pack=$(cd "$1" && pwd); cases=$2; out=$3
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
source "$(dirname "${BASH_SOURCE[0]}")/../gpu/start_kbenchd.sh"
start_kbenchd "$pack" "$out"
"$pack/bin/kbctl" -o json devices >"$out/devices.json"
"$pack/bin/kbctl" devices
n=0
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  n=$((n + 1))
  IFS='|' read -r name peer args <<<"$line"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  if "$pack/bin/kbctl" -o json $args >"$out/kb_${n}.json" 2>"$out/kb_${n}.err"; then rc=0; else rc=$?; fi
  end=$(date +%s.%N)
  python3 -c 'import json,sys; print(json.dumps({"case": sys.argv[1], "peer": sys.argv[2], "args": sys.argv[3], "rc": int(sys.argv[4]), "wall_seconds": float(sys.argv[6]) - float(sys.argv[5])}))' "$name" "$peer" "$args" "$rc" "$start" "$end" >"$out/kb_${n}.meta"
  echo "case $n $name rc=$rc"
done <"$cases"
kill $kbenchd_pid; wait $kbenchd_pid 2>/dev/null || true
trap - EXIT
PYTHONUNBUFFERED=1 python3 "$pack/torch_peers.py" "$cases" >"$out/torch.json"
python3 "$pack/report.py" "$out" | tee "$out/report.md"
