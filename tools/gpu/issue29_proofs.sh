#!/usr/bin/env bash
# On the GPU host: issue 29's GPU proofs from one packed folder (tools/gpu/pack_all.sh), each
# step bounded; logs under OUT_DIR.
#   harness  cuda_harness_test's energy-and-stamp test on the device
#   energy   kbench's joules per launch of copy 1 GiB and a bf16 GEMM 4096^3 against
#            nvidia-smi's power readings in the same run: while kbench's job runs (its energy
#            phase's average watts against nvidia-smi's samples over that phase), and a PyTorch
#            loop of the same operation for ~6 s under nvidia-smi (its J/launch = mean watts x
#            seconds / launches) beside kbench's
#   softmax  J/launch of softmax naive vs fused, then `leaderboard --by energy` (RANKED=1: ranked
#            runs, ~2 min a job on an H200; otherwise plain runs and --include-unranked)
#   stamp    the clean stamp with a second process on the GPU (contaminated: other_process),
#            then alone (clean). Clocks are not locked low: the device's rules forbid changing
#            its settings (/work/.library/device/README.md), so that flip is tested on CPU only.
#   repro    8 jobs of a key, a 9th reproduced with `kbctl repro` (verdict and drift list), then
#            the job bundled, moved to a second kbenchd with its own data directory, re-run there
# usage: STEPS="harness energy softmax stamp repro" issue29_proofs.sh PACK_DIR OUT_DIR
set -uo pipefail
pack=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
steps=" ${STEPS:-harness energy softmax stamp repro} "
want() { [[ $steps == *" $1 "* ]]; }
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
export PATH="$pack/tools:$PATH"  # jq wrapper
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw,power.limit \
  --format=csv,noheader
# CUDA_VISIBLE_DEVICES picks the physical GPU; nvidia-smi numbers GPUs physically.
smi_id=${CUDA_VISIBLE_DEVICES:-0}
step() { echo "== $1 ($(date -u +%H:%M:%S))"; }

if want harness; then
  step "harness: cuda_harness_test *MeasuresEnergy*"
  timeout 120 "$pack/bin/cuda_harness_test" --gtest_filter='*MeasuresEnergy*:*Stamp*' \
    >"$out/harness.log" 2>&1
  echo "rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|energy|joules|stamp" "$out/harness.log" | head -20
fi

source "$(dirname "${BASH_SOURCE[0]}")/start_kbenchd.sh"
start_kbenchd "$pack" "$out"
kbctl() { timeout "${T:-120}" "$pack/bin/kbctl" "$@"; }
energy_of() {  # JSON_FILE: the first variant's median, energy and stamp on one line
  jq -c '{id, state, median_us: (.result.variants[0].stats.median_seconds * 1e6),
          energy: .result.variants[0].energy,
          clean: .result.variants[0].clean_stamp.clean,
          reasons: .result.variants[0].clean_stamp.details}' "$1"
}
# nvidia-smi's power readings every 50 ms into FILE until killed (ms since epoch, watts).
sample_power() {  # FILE
  nvidia-smi -i "$smi_id" --query-gpu=timestamp,power.draw.instant --format=csv,noheader,nounits \
    -lms 50 >"$1" 2>&1
}

if want energy; then
  step "energy: kbench vs nvidia-smi, copy 1 GiB and bf16 GEMM 4096^3"
  cases=("copy1g|copy --variant vectorized --shape 268435456|copy"
         "gemm4k|matmul --variant cublas --shape 4096x4096x4096 --dtype bf16|gemm")
  for c in "${cases[@]}"; do
    IFS='|' read -r name args torch_op <<<"$c"
    sample_power "$out/smi_$name.csv" &
    smi=$!
    # shellcheck disable=SC2086
    kbctl -o json bench $args --device cuda:0 >"$out/energy_$name.json" 2>"$out/energy_$name.err"
    kill $smi; wait $smi 2>/dev/null
    energy_of "$out/energy_$name.json"
    sample_power "$out/smi_torch_$name.csv" &
    smi=$!
    python3 - "$torch_op" >"$out/torch_$name.json" <<'EOF'
import json, sys, time, torch
op = sys.argv[1]
if op == "copy":
    x = torch.randn(268435456, device="cuda"); y = torch.empty_like(x)
    run = lambda: y.copy_(x)
else:
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    run = lambda: torch.mm(a, b)
for _ in range(20): run()
torch.cuda.synchronize()
time.sleep(1.0)  # the idle gap marks where the loop starts in nvidia-smi's readings
t0 = time.time(); n = 0
while time.time() - t0 < 6.0:
    for _ in range(10): run()
    n += 10
    torch.cuda.synchronize()
t1 = time.time()
print(json.dumps({"op": op, "launches": n, "start": t0, "end": t1,
                  "seconds_per_launch": (t1 - t0) / n}))
EOF
    sleep 0.3; kill $smi; wait $smi 2>/dev/null
    python3 - "$out/energy_$name.json" "$out/smi_$name.csv" "$out/torch_$name.json" \
      "$out/smi_torch_$name.csv" <<'EOF' | tee "$out/energy_$name.txt"
import csv, datetime, json, statistics, sys
job = json.load(open(sys.argv[1])); v = job["result"]["variants"][0]; e = v.get("energy", {})
def readings(path):
    rows = []
    for r in csv.reader(open(path)):
        try:
            t = datetime.datetime.strptime(r[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
            rows.append((t, float(r[1])))
        except (ValueError, IndexError):
            pass
    return rows
smi = readings(sys.argv[2])
print("kbench:", {k: e.get(k) for k in ("measured", "unsupported", "joules_per_launch",
      "average_watts", "launches", "seconds", "joules")})
# The energy phase is the job's last ~seconds before finish: the busy readings near the
# kbench average are the phase's; show the top readings' mean beside it.
if smi:
    watts = sorted(w for _, w in smi)
    top = watts[-max(3, int(len(watts) * float(e.get("seconds", 1)) / max(1e-9, (smi[-1][0] - smi[0][0]))) ):]
    print("nvidia-smi during the job: %d readings, max %.1f W, mean of the top %d (the energy "
          "phase's length) %.1f W" % (len(watts), watts[-1], len(top), statistics.mean(top)))
    if e.get("measured"):
        print("kbench average watts vs nvidia-smi's top: %+.1f %%" %
              (100 * (e["average_watts"] / statistics.mean(top) - 1)))
t = json.load(open(sys.argv[3])); ts = readings(sys.argv[4])
inside = [w for s, w in ts if t["start"] + 0.5 <= s <= t["end"] - 0.2]
if inside:
    w = statistics.mean(inside)
    jpl = w * t["seconds_per_launch"]
    print("torch loop: %d launches, %.2f us/launch, nvidia-smi %d readings mean %.1f W -> %.4g J/launch"
          % (t["launches"], t["seconds_per_launch"] * 1e6, len(inside), w, jpl))
    if e.get("measured"):
        print("kbench J/launch vs torch x nvidia-smi: %+.1f %% (kbench median %.2f us vs torch %.2f us)"
              % (100 * (e["joules_per_launch"] / jpl - 1),
                 float(v["stats"]["median_seconds"]) * 1e6, t["seconds_per_launch"] * 1e6))
EOF
  done
fi

if want softmax; then
  step "softmax: naive vs fused J/launch, leaderboard --by energy"
  ranked=(--include-unranked); bench_ranked=()
  [[ ${RANKED:-0} == 1 ]] && { ranked=(); bench_ranked=(--ranked); }
  for variant in naive fused online; do
    for r in 1 2; do
      T=240 kbctl -o json bench softmax --variant $variant --shape 4096x4096 --device cuda:0 \
        "${bench_ranked[@]}" >"$out/softmax_${variant}_$r.json" 2>"$out/softmax_${variant}_$r.err"
      energy_of "$out/softmax_${variant}_$r.json"
    done
  done
  kbctl leaderboard softmax --shapes 4096x4096 --by energy "${ranked[@]}" 2>&1 |
    tee "$out/leaderboard_energy.txt"
  kbctl leaderboard softmax --shapes 4096x4096 "${ranked[@]}" 2>&1 | tee "$out/leaderboard_time.txt"
fi

if want stamp; then
  step "stamp: a job while a second process runs matmuls on the GPU, then one alone"
  source "$(dirname "${BASH_SOURCE[0]}")/contender.sh"
  start_contender 20 "$out/contender.log"
  contender=$contender_pid
  kbctl -o json bench copy --variant vectorized --shape 33554432 --device cuda:0 --min-time 0.2 \
    >"$out/stamp_contended.json"
  energy_of "$out/stamp_contended.json"
  jq -c '.result.variants[0].clean_stamp' "$out/stamp_contended.json"
  kbctl history copy --shape 33554432 2>&1 | tail -4
  wait $contender
  kbctl -o json bench copy --variant vectorized --shape 33554432 --device cuda:0 --min-time 0.2 \
    >"$out/stamp_alone.json"
  energy_of "$out/stamp_alone.json"
  jq -c '.result.variants[0].clean_stamp' "$out/stamp_alone.json"
  echo "history (contaminated left out), then with --include-unclean:"
  kbctl history copy --shape 33554432 2>&1 | tail -4
  kbctl history copy --shape 33554432 --include-unclean 2>&1 | tail -4
fi

if want repro; then
  step "repro: 8 jobs of copy 128 MiB, a 9th reproduced; a bundle re-run on a second kbenchd"
  for i in $(seq 1 8); do
    kbctl -o json bench copy --variant vectorized --shape 33554432 --device cuda:0 \
      >"$out/repro_history_$i.json" 2>/dev/null
  done
  kbctl -o json bench copy --variant vectorized --shape 33554432 --device cuda:0 \
    >"$out/repro_job.json"
  job=$(jq -r .id "$out/repro_job.json")
  T=240 kbctl repro "$job" 2>&1 | tee "$out/repro.txt"
  echo "repro rc=${PIPESTATUS[0]}"
  kbctl bundle "$job" -f "$out/job.kbench" 2>&1 | tail -2
  ls -l "$out/job.kbench"
  first_server=$KBENCH_SERVER
  start_second() {
    local data; data=$(mktemp -d)
    "$pack/bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$data" \
      >"$out/kbenchd2.stdout" 2>"$out/kbenchd2.log" &
    second_pid=$!
    for _ in $(seq 1 900); do
      grep -q '^kbenchd: ready' "$out/kbenchd2.stdout" 2>/dev/null && break; sleep 0.1
    done
    KBENCH_SERVER=$(sed -n 's/^kbenchd: listening on //p' "$out/kbenchd2.stdout")
  }
  kill "$kbenchd_pid"; wait "$kbenchd_pid" 2>/dev/null  # one executor per GPU at a time
  start_second
  echo "second kbenchd at $KBENCH_SERVER (first was $first_server)"
  T=240 kbctl repro "$out/job.kbench" 2>&1 | tee "$out/repro_bundle.txt"
  echo "repro bundle rc=${PIPESTATUS[0]}"
  kill "$second_pid"; wait "$second_pid" 2>/dev/null
fi
