#!/usr/bin/env bash
# On the GPU host: issue 23's GPU proofs from packed folders, each step bounded in time, logs
# under OUT_DIR. STEPS picks some of them (default all):
#   redteam  the red-team corpus on this build (tests/gpu/redteam/run_redteam.sh)
#   old      the corpus's cheats on an earlier build (OLD_PACK), to show they fooled it
#   ab       kbench-sealed-ab: sealed against plain samples of the catalogue's four proof cases
#   jobs     the four cases as compare jobs through kbctl on this build and on OLD_PACK
#            (JOB_BUILDS="new old" by default),
#            one build after the other: medians and each job's wall time
#   cheat    tests/gpu/cheating_kernels_test
# usage: STEPS="redteam ab" OLD_PACK=/tmp/o issue23_proofs.sh PACK_DIR OUT_DIR
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
pack=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
steps=${STEPS:-"redteam old ab jobs cheat"}
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
date -u
has() { [[ " $steps " == *" $1 "* ]]; }

if has redteam; then
  echo "== redteam ($pack)"
  ONLY=${ONLY:-} timeout 480 "$repo/tests/gpu/redteam/run_redteam.sh" "$pack" "$out/redteam" | tail -25
fi
if has old && [[ -n "${OLD_PACK:-}" ]]; then
  echo "== redteam cheats on the earlier build ($OLD_PACK)"
  ONLY=cheat LD_LIBRARY_PATH="$OLD_PACK/lib:/usr/local/cuda/lib64" timeout 400 \
    "$repo/tests/gpu/redteam/run_redteam.sh" "$OLD_PACK" "$out/redteam_old" | tail -20
fi
if has ab; then
  echo "== kbench-sealed-ab"
  timeout 200 "$pack/bin/kbench-sealed-ab" --samples 150
fi
if has jobs; then
  echo "== the proof cases as jobs, this build then the earlier one"
  cases=("softmax --variants fused --shape 4096x4096"
         "add --variants vectorized --shape 10000x10000"
         "matmul --variants cublas --shape 4096x4096x4096 --dtype bf16"
         "copy --variants vectorized --shape 268435456")
  for build in ${JOB_BUILDS:-new old}; do
    p=$pack; [[ $build == old ]] && p=${OLD_PACK:-}
    [[ -n "$p" ]] || continue
    data=$(mktemp -d)
    LD_LIBRARY_PATH="$p/lib:/usr/local/cuda/lib64" "$p/bin/kbenchd" --open --listen 127.0.0.1:0 \
      --data-dir "$data" >"$out/kbenchd_$build.stdout" 2>"$out/kbenchd_$build.log" &
    pid=$!
    for _ in $(seq 1 600); do grep -q '^kbenchd: ready' "$out/kbenchd_$build.stdout" && break; sleep 0.1; done
    addr=$(sed -n 's/^kbenchd: listening on //p' "$out/kbenchd_$build.stdout")
    for c in "${cases[@]}"; do
      name=$(echo "$c" | awk '{print $1}')
      start=$(date +%s.%N)
      LD_LIBRARY_PATH="$p/lib:/usr/local/cuda/lib64" timeout 120 "$p/bin/kbctl" --server "$addr" \
        -o json compare $c --device cuda:0 --mode cold >"$out/job_${build}_$name.json" 2>&1
      end=$(date +%s.%N)
      python3 - "$build" "$name" "$start" "$end" "$out/job_${build}_$name.json" <<'PY'
import json, sys
build, name, start, end, path = sys.argv[1:6]
try:
    j = json.load(open(path)); j = j.get("job", j)
    v = j["result"]["variants"][0]
    s = v.get("sealed_checks", {})
    print(f"JOB {build} {name} median_us {v['stats']['median_seconds']*1e6:.3f} "
          f"samples {v['stats']['samples']} sampling_wall_s {v.get('wall_seconds', 0):.2f} "
          f"checked {s.get('samples_checked', '-')} check_s {s.get('check_seconds', 0):.2f} "
          f"job_wall_s {float(end) - float(start):.2f}")
except Exception as e:
    print(f"JOB {build} {name} failed: {open(path).read()[:300]}")
PY
    done
    kill $pid; wait $pid 2>/dev/null; rm -rf "$data"
  done
fi
if has cheat; then
  echo "== cheating_kernels_test"
  timeout 200 "$pack/bin/cheating_kernels_test" >"$out/cheating.log" 2>&1; echo "rc=$?"
  grep -E "^\[ +(FAILED|PASSED|SKIPPED) " "$out/cheating.log" | sort | uniq -c
  grep -B2 -A6 Failure "$out/cheating.log" | head -30
fi
