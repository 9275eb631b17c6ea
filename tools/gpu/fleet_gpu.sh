#!/usr/bin/env bash
# On a GPU host: a fleet of two kbenchd nodes sharing one PostgreSQL (both packed by
# tools/gpu/pack_fleet.sh), each node with its own GPU where there are two (else both on GPU 0),
# proving on GPUs what the fleet's CI tests prove on cpu devices:
#   claims   jobs for cuda:any and for the card's model word ("h100:any"), submitted on node a,
#            run on the nodes' GPUs, each job once, never two at a time on one GPU;
#   progress a watch on node b of a GPU job that node a runs shows its progress;
#   sweep    a sweep for cuda:any runs all its points on one device (the curve compares them);
#   lost     the node running a job is killed (SIGKILL) mid-run: after the lease (3 s) the job
#            runs again on the other node and succeeds, its attempts 2.
#   gang     (GANG=1, instead of the above) issue 30: node a holds both GPUs, node b none; multi-GPU
#            all_reduce jobs submitted on node b (--gpus 2, and --devices a/cuda:0,a/cuda:1) with
#            one-GPU jobs for cuda:any: all run on node a, the gangs on both its GPUs.
# usage: fleet_gpu.sh PACK_DIR OUT_DIR   (CPU_ONLY=1: the nodes serve cpu only, a dry run)
set -uo pipefail
pack=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
step() { echo "== $1 ($(date -u +%H:%M:%S))"; }
kbctl() { timeout "${T:-120}" "$pack/bin/kbctl" "$@"; }
root=$(mktemp -d /tmp/kbench-fleet-XXXXXX)
chmod 755 "$root"
declare -A pid addr
version=$(cat "$pack/pg/VERSION")
pgbin=$pack/pg/usr/lib/postgresql/$version/bin
as=()
as_pg() { "${as[@]}" env LD_LIBRARY_PATH="$pack/pglib" TZ=UTC "$@"; }
cleanup() {
  for p in "${pid[@]}"; do kill -9 "$p" 2>/dev/null; done
  as_pg "$pgbin/pg_ctl" -D "$root/data" -m immediate -w stop >/dev/null 2>&1
}
trap cleanup EXIT

step "postgres $version from the pack"
[ -e /usr/share/zoneinfo/UTC ] || { mkdir -p /usr/share/zoneinfo && cp -a "$pack/pg/zoneinfo/." /usr/share/zoneinfo/; }
if [ "$(id -u)" = 0 ]; then
  # The server refuses to run as root.
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$root"
  as=(runuser -u postgres --)
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg "$pgbin/initdb" -D "$root/data" -U kbench --auth=trust -E UTF8 --no-sync \
  >"$out/initdb.log" 2>&1 || { tail -20 "$out/initdb.log"; exit 1; }
as_pg "$pgbin/pg_ctl" -D "$root/data" -l "$root/postgres.log" -w -t 30 \
  -o "-p $port -k $root -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null ||
  { tail -20 "$root/postgres.log"; exit 1; }
url=postgres://kbench@127.0.0.1:$port/postgres

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
start_node() {  # NAME GPUS [KBENCHD FLAGS...]
  local name=$1 gpu=$2 flags=(--store "$url" --node "$1" --node-lease 3 "${@:3}")
  [ -n "${CPU_ONLY:-}" ] && flags+=(--no-cuda)
  mkdir -p "$root/$name"
  CUDA_VISIBLE_DEVICES=$gpu "$pack/bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$root/$name" \
    "${flags[@]}" >"$out/$name.stdout" 2>>"$out/$name.log" &
  pid[$name]=$!
  for _ in $(seq 1 900); do
    grep -q '^kbenchd: ready' "$out/$name.stdout" 2>/dev/null && break
    kill -0 "${pid[$name]}" 2>/dev/null || { tail "$out/$name.log"; exit 1; }
    sleep 0.1
  done
  addr[$name]=$(sed -n 's/^kbenchd: listening on //p' "$out/$name.stdout")
}
if [ -n "${GANG:-}" ]; then
  step "gang: node a with both GPUs, node b with none"
  start_node a 0,1
  start_node b 0 --no-cuda
  kbctl --server "${addr[b]}" nodes | tee "$out/nodes.txt"
  ids=()
  for args in "--gpus 2" "--devices a/cuda:0,a/cuda:1" "--device cuda:any" "--device cuda:any"; do
    kind=compare
    [[ $args == --device\ * ]] && op=(copy --variant vectorized --shape 33554432) ||
      op=(all_reduce --variants nccl,one_shot --shape 1048576)
    # shellcheck disable=SC2086
    ids+=("$(kbctl --server "${addr[b]}" -o json $kind "${op[@]}" $args --timeout-s 2 --no-wait |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')")
  done
  fail=0
  for id in "${ids[@]}"; do
    kbctl --server "${addr[b]}" -o json watch "$id" >"$out/gang_$id.json" 2>/dev/null
    python3 - "$out/gang_$id.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
spec, res = j["spec"], j.get("result", {})
line = f"{j['id']} {spec['kernel']:>10} device {j.get('device')} devices {spec.get('devices')} {j['state']}"
for v in res.get("variants", []):
    c = v.get("collective")
    if c:
        line += f" | {v['variant']} {float(v['stats']['median_seconds']) * 1e6:.2f} us busbw {c['bus_bytes_per_second'] / 1e9:.1f} GB/s ranks {c['devices']}"
print(line)
sys.exit(0 if j["state"] == "JOB_STATE_SUCCEEDED" else 1)
PY
  done
  exit $fail
fi
step "nodes a and b ($gpus GPUs on this host)"
start_node a 0
start_node b "$((gpus > 1 ? 1 : 0))"
kbctl --server "${addr[a]}" nodes | tee "$out/nodes.txt"
kbctl --server "${addr[a]}" -o json devices >"$out/devices.json"

if [ -n "${CPU_ONLY:-}" ]; then
  any=cpu:any model=cpu:any op=(gelu --variant tanh_host --shape 1048576)
else
  any=cuda:any
  model=$(python3 -c '
import json, sys
for d in json.load(open(sys.argv[1]))["devices"]:
    for w in d["name"].lower().split():
        if w[0] in "abhlv" and any(c.isdigit() for c in w): print(w + ":any"); sys.exit()
print("cuda:any")' "$out/devices.json")
  op=(softmax --variant fused --shape 4096x4096)
fi
submit() {  # SERVER TARGET MIN_TIME -> the job id
  kbctl --server "$1" -o json bench "${op[@]}" --device "$2" --min-time "$3" --no-wait |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print((d.get("job") or d)["id"])'
}

step "claims: 6 jobs for $any and 2 for $model, submitted on node a"
ids=()
for _ in 1 2 3 4 5 6; do ids+=("$(submit "${addr[a]}" "$any" 0.3)"); done
for _ in 1 2; do ids+=("$(submit "${addr[a]}" "$model" 0.3)"); done
for id in "${ids[@]}"; do kbctl --server "${addr[b]}" -o json watch "$id" >"$out/claim_$id.json"; done
python3 - "$out" "${ids[@]}" <<'EOF'
import json, sys, datetime
def t(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
out, ids = sys.argv[1], sys.argv[2:]
jobs = [json.load(open(f"{out}/claim_{i}.json")) for i in ids]
jobs = [j.get("job", j) for j in jobs]
by_device = {}
for j in jobs:
    v = (j.get("result", {}).get("variants") or [{}])[0]
    print(f'{j["id"]} {j["state"]:<18} {j["device"]:<10} attempts {j["attempts"]} '
          f'median {v.get("stats", {}).get("median_seconds", 0) * 1e6:8.2f} us '
          f'{j["spec"]["device"] if "device" in j["spec"] else ""}')
    by_device.setdefault(j["device"], []).append((t(j["start_time"]), t(j["finish_time"]), j["id"]))
ok = all(j["state"] == "JOB_STATE_SUCCEEDED" and j["attempts"] == 1 for j in jobs)
overlaps = 0
for device, runs in by_device.items():
    runs.sort()
    overlaps += sum(1 for a, b in zip(runs, runs[1:]) if b[0] < a[1])
print("jobs per device:", {d: len(r) for d, r in by_device.items()})
print(f"claims: {'PASS' if ok and overlaps == 0 else 'FAIL'} (all succeeded once: {ok}, "
      f"overlapping runs on one device: {overlaps})")
EOF

step "progress: a 6 s job on node a's GPU, followed from node b"
if [ -n "${CPU_ONLY:-}" ]; then on_a=a/cpu; else on_a=a/cuda:0; fi
long=$(submit "${addr[b]}" "$on_a" 6)
seen=0
for _ in $(seq 1 200); do
  kbctl --server "${addr[b]}" -o json get "$long" >"$out/progress_get.json" || break
  state=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j = j.get("job", j)
p = j.get("progress", {})
print(j["state"], p.get("samples", 0), p.get("noise", 0), p.get("variant", ""))' "$out/progress_get.json")
  echo "$state" >>"$out/progress_seen.txt"
  [[ $state == JOB_STATE_RUNNING\ [1-9]* ]] && seen=$((seen + 1))
  [[ $state == JOB_STATE_SUCCEEDED* || $state == JOB_STATE_FAILED* ]] && break
  sleep 0.25
done
uniq -c "$out/progress_seen.txt" | tail -8
echo "progress: $([ $seen -gt 0 ] && echo PASS || echo FAIL) ($seen reads on node b of node a's run with samples)"

step "sweep: 4 points for $any, submitted on node b, all on one device"
if [ -n "${CPU_ONLY:-}" ]; then
  sweep=(gelu --variants tanh_host,erf_host --shape 65536 --axis dim0=16384:131072:*2)
else
  sweep=(softmax --variants fused,online --shape 4096x1024 --axis cols=1024:8192:*2)
fi
kbctl --server "${addr[b]}" -o json sweep "${sweep[@]}" --device "$any" --min-time 0.1 \
  >"$out/sweep.json"
python3 - "$out/sweep.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
devices = [j["device"] for j in d["jobs"]]
states = {j["state"] for j in d["jobs"]}
print("points on:", devices, "states:", sorted(states))
print("sweep:", "PASS" if len(set(devices)) == 1 and states == {"JOB_STATE_SUCCEEDED"} else "FAIL")
EOF

step "lost: the node running a 10 s $any job is killed; the job runs again on the other"
lost=$(submit "${addr[b]}" "$any" 10)
for _ in $(seq 1 200); do
  kbctl --server "${addr[b]}" -o json get "$lost" >"$out/lost_before.json"
  grep -q '"JOB_STATE_RUNNING"' "$out/lost_before.json" && break
  sleep 0.1
done
sleep 2
victim=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(j.get("job", j)["device"].split("/")[0])' "$out/lost_before.json")
survivor=$([ "$victim" = a ] && echo b || echo a)
echo "job $lost runs on node $victim: SIGKILL at $(date -u +%H:%M:%S.%N | cut -c1-12)"
kill -9 "${pid[$victim]}"
unset "pid[$victim]"
kbctl --server "${addr[$survivor]}" -o json watch "$lost" >"$out/lost_after.json"
python3 - "$out/lost_after.json" "$victim" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1])); j = j.get("job", j)
v = (j.get("result", {}).get("variants") or [{}])[0]
print(j["state"], j["device"], "attempts", j["attempts"],
      "median %.2f us" % (v.get("stats", {}).get("median_seconds", 0) * 1e6),
      "correct", v.get("correctness", {}).get("passed"))
ok = j["state"] == "JOB_STATE_SUCCEEDED" and j["attempts"] == 2 and \
     not j["device"].startswith(sys.argv[2] + "/")
print("lost:", "PASS" if ok else "FAIL")
EOF
kbctl --server "${addr[$survivor]}" nodes | tee "$out/nodes_after.txt"
