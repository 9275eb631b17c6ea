#!/usr/bin/env bash
# Issue 30's GPU proof, on a host with two GPUs, from a packed build folder (tools/gpu/pack_all.sh,
# unpacked: the folder with bin/ and lib/):
#   1. the collectives' GPU test (every collective and variant correct at 1, 3 and 1000003
#      elements on both ranks, whole multi-GPU jobs);
#   2. kbench's all_reduce through the executor's own job path (kbench-collectives-bench):
#      nccl, one_shot and two_shot at 8 KiB .. 256 MiB (x4 steps), and nccl at 1 GiB;
#   3. torch.distributed.all_reduce (NCCL, 2 ranks, CUDA events around back-to-back calls) at the
#      same sizes, in the same run;
#   4. one table: time and bus bandwidth per size and variant, NCCL against PyTorch at 1 GiB
#      (the issue asks within 5%), one_shot against NCCL below 1 MiB (and under 8 us at 8 KiB);
#   5. when kbctl has --devices (the scheduler's gang reservation), one all_reduce job through
#      a real kbenchd as well.
# NVLink multicast stays off everywhere (NCCL_NVLS_ENABLE=0), as kbench's executor has it.
# usage: collectives_proof.sh PACK_DIR OUT_DIR
set -uo pipefail
# shellcheck source=tools/gpu/proof_common.sh
source "$(dirname "$0")/proof_common.sh"
sizes=8192,32768,131072,524288,2097152,8388608,33554432,134217728,268435456
one_gib=1073741824

step "host"
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
gpus=$(nvidia-smi -L | wc -l)
if ((gpus < 2)); then
  echo "collectives_proof: $gpus GPU(s) here; the proof needs two" >&2
  exit 77
fi
nvidia-smi topo -m | head -4

# The executor links libnccl.so.2 (the toolkit's at build time); the host must have one.
step "NCCL"
if ldd "$pack/bin/kbench-collectives-bench" | grep -q 'libnccl.*not found'; then
  torch_nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))' 2>/dev/null || true)
  if [[ -n $torch_nccl && -e $torch_nccl/libnccl.so.2 ]]; then
    echo "no system libnccl.so.2: using PyTorch's ($torch_nccl)"
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$torch_nccl"
  else
    echo "collectives_proof: libnccl.so.2 not found (system or PyTorch's); install NCCL" >&2
    exit 1
  fi
fi
ldd "$pack/bin/kbench-collectives-bench" | grep nccl

step "1. collectives_gpu_test"
if ! "$pack/bin/collectives_gpu_test" --gtest_brief=1 >"$out/gpu_test.log" 2>&1; then
  echo "collectives_gpu_test FAILED" >&2
  status=1
fi
grep -E '^\[ *(PASSED|FAILED|SKIPPED|RESULT) ' "$out/gpu_test.log" | tail -30

step "2. kbench all_reduce (executor job path)"
rm -f "$out/kbench.jsonl" "$out/torch.jsonl"
bench=("$pack/bin/kbench-collectives-bench" --devices cuda:0,cuda:1 --op all_reduce
  --jsonl "$out/kbench.jsonl" --min-time 0.05 --timeout 10)
"${bench[@]}" --variants nccl,one_shot,two_shot --bytes "$sizes" || status=1
"${bench[@]}" --variants nccl --bytes "$one_gib" || status=1

step "3. torch.distributed.all_reduce"
python3 "$here/collectives_torch.py" --bytes "$sizes,$one_gib" --jsonl "$out/torch.jsonl" ||
  status=1

step "4. table"
python3 - "$out/kbench.jsonl" "$out/torch.jsonl" <<'EOF' | tee "$out/table.md"
import json, sys
rows = {}
for path in sys.argv[1:]:
    try:
        for line in open(path):
            r = json.loads(line)
            rows[(r["message_bytes"], r["variant"])] = r
    except FileNotFoundError:
        print(f"(missing {path})")
sizes = sorted({size for size, _ in rows})
variants = ["nccl", "one_shot", "two_shot", "torch.distributed"]
print("| bytes | " + " | ".join(f"{v} us | {v} busbw GB/s" for v in variants) + " |")
print("|---:|" + "---:|" * (2 * len(variants)))
for size in sizes:
    cells = []
    for v in variants:
        r = rows.get((size, v))
        cells += ([f"{r['median_seconds'] * 1e6:.2f}", f"{r['busbw'] / 1e9:.1f}"] if r
                  else ["-", "-"])
    print(f"| {size} | " + " | ".join(cells) + " |")
peak = max((r.get("peak", 0) for r in rows.values()), default=0)
print(f"\ninterconnect peak (peer copy, both directions at once): {peak / 1e9:.1f} GB/s")
nccl, torch = rows.get((1 << 30, "nccl")), rows.get((1 << 30, "torch.distributed"))
if nccl and torch:
    ratio = nccl["busbw"] / torch["busbw"]
    print(f"1 GiB: kbench nccl {nccl['busbw'] / 1e9:.1f} GB/s, torch {torch['busbw'] / 1e9:.1f} "
          f"GB/s: ratio {ratio:.3f} ({'within' if abs(ratio - 1) <= 0.05 else 'NOT within'} 5%)")
for size in sizes:
    one, vendor = rows.get((size, "one_shot")), rows.get((size, "nccl"))
    if one and vendor and size <= 1 << 20:
        print(f"{size} B: one_shot {one['median_seconds'] * 1e6:.2f} us vs nccl "
              f"{vendor['median_seconds'] * 1e6:.2f} us: "
              f"{vendor['median_seconds'] / one['median_seconds']:.2f}x")
eight = rows.get((8192, "one_shot"))
if eight:
    print(f"8 KiB one_shot: {eight['median_seconds'] * 1e6:.2f} us "
          f"({'under' if eight['median_seconds'] < 8e-6 else 'NOT under'} 8 us)")
EOF

step "5. a job through kbenchd"
# (grep reads all of the help: with pipefail, -q's early exit would fail kbctl's write.)
if "$pack/bin/kbctl" bench --help 2>&1 | grep -- '--devices' >/dev/null; then
  source "$here/start_kbenchd.sh"
  start_kbenchd "$pack" "$out"
  "$pack/bin/kbctl" -o json compare all_reduce --variants nccl,one_shot,two_shot --shape 262144 \
    --devices cuda:0,cuda:1 >"$out/kbenchd_job.json" 2>"$out/kbenchd_job.err" || status=1
  python3 - "$out/kbenchd_job.json" <<'EOF' || status=1
import json, sys
job = json.load(open(sys.argv[1]))
result = job.get("result", job)
for v in result.get("variants", []):
    c = v.get("collective", {})
    print(f"{v['variant']:>10}: median {float(v['stats']['median_seconds']) * 1e6:.2f} us, busbw "
          f"{float(c.get('bus_bytes_per_second', 0)) / 1e9:.1f} GB/s, ranks checked "
          f"{c.get('ranks_checked', 0)}, rank medians {c.get('rank_median_seconds')}")
EOF
  tail -3 "$out/kbenchd_job.err"
else
  echo "kbctl has no --devices yet: the kbenchd job path is not wired; skipped"
fi
exit $status
