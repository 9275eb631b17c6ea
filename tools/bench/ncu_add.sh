#!/usr/bin/env bash
# Profile-based look at `add` 10000² f32: kbench's kernels (through a kbench profile job with
# Nsight Compute) beside torch.compile's Triton kernel under the same ncu metrics.
set -euo pipefail
pack=$(cd "$1" && pwd)
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
data=$(mktemp -d)
"$pack/bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$data" >"$data/out" 2>"$data/err" &
pid=$!
for _ in $(seq 1 600); do grep -q '^kbenchd: ready' "$data/out" && break; sleep 0.1; done
export KBENCH_SERVER=$(sed -n 's/^kbenchd: listening on //p' "$data/out")
"$pack/bin/kbctl" profile add --variants vectorized,naive --shape 10000x10000 --device cuda:0 --ncu -f "$data/trace.json" || true
"$pack/bin/kbctl" -o json jobs --limit 1 | python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print(json.dumps(j["result"]["profile"].get("ncu"), indent=1))'
kill $pid; wait $pid 2>/dev/null || true
cat >"$data/tc.py" <<'PY'
import torch
f = torch.compile(lambda x, y: x + y)
a = torch.rand(10000 * 10000, device="cuda"); b = torch.rand_like(a)
for _ in range(6):
    f(a, b)
torch.cuda.synchronize()
PY
m=gpu__time_duration.sum,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
ncu --clock-control none --metrics "$m" -k regex:triton --launch-skip 3 --launch-count 2 --csv python3 "$data/tc.py" 2>&1 | grep -E '^"' | cut -c1-400
