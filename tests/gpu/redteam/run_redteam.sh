#!/usr/bin/env bash
# The red-team run (issue 23, item 8) on a GPU host: starts a kbenchd on loopback from a packed
# folder, submits every entry of manifest.txt as a compare job against add's honest catalogue
# variants (16M f32, cold mode), and judges each verdict against the manifest. Prints one line
# per entry and the score: "N of N cheats defeated (R rejected, K neutralised), 0 of M honest
# kernels rejected". Exit 0 only when every entry got its expected verdict.
# usage: run_redteam.sh PACK_DIR OUT_DIR   (PACK_DIR: bin/ and lib/ from tools/bench/pack.sh)
#   ONLY=cheat or ONLY=honest runs one kind of entry (a device call is bounded in time).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
pack=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "run_redteam.sh: no GPU on this machine: skipped"; exit 77
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

data=$(mktemp -d)
"$pack/bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$data" >"$out/kbenchd.stdout" 2>"$out/kbenchd.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 600); do
  grep -q '^kbenchd: ready' "$out/kbenchd.stdout" 2>/dev/null && break
  kill -0 $pid 2>/dev/null || { tail "$out/kbenchd.log"; exit 1; }
  sleep 0.1
done
export KBENCH_SERVER=$(sed -n 's/^kbenchd: listening on //p' "$out/kbenchd.stdout")

# The Triton entry is compiled here, by the host's Triton, into kbench's JSON form.
triton_json=""
if python3 -c 'import triton' 2>/dev/null; then
  (cd "$repo/tools/triton" && timeout 120 python3 compile_for_kbench.py examples/vector_add.py \
    --dtype f32 --arch 90 --out-dir "$out/triton_vector_add") >"$out/triton.log" 2>&1 &&
    triton_json="$out/triton_vector_add/kernel.json"
fi

results="$out/results.txt"
: >"$results"
while IFS='|' read -r name kind source entry grid block expect class; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [[ -z "${ONLY:-}" || "$ONLY" == "$kind" ]] || continue
  args=(compare add --variants naive,vectorized --shape 16777216 --dtype f32 --device cuda:0
        --mode cold --name "@$name" -o json)
  if [[ "$source" == triton:* ]]; then
    [[ -n "$triton_json" ]] || { echo "$name|$kind|$expect|skipped|no Triton here|0|0" >>"$results"; continue; }
    args+=(--source "$triton_json")
  else
    args+=(--source "$here/$source" --entry "$entry" --grid "$grid" --block "$block")
  fi
  timeout 180 "$pack/bin/kbctl" "${args[@]}" >"$out/$name.json" 2>"$out/$name.err"
  rc=$?
  python3 - "$name" "$kind" "$expect" "$rc" "$out/$name.json" "$out/$name.err" >>"$results" <<'PY'
import json, sys
name, kind, expect, rc, path, err = sys.argv[1:7]
text = open(path).read().strip()
try:
    job = json.loads(text) if text else {}
except json.JSONDecodeError:
    job = {}
job = job.get("job", job)
state = job.get("state", "")
reason = (job.get("error") or open(err).read().strip()).replace("\n", " ").replace("|", "/")
medians = {v.get("variant"): v.get("stats", {}).get("median_seconds", 0)
           for v in job.get("result", {}).get("variants", [])}
mine = medians.get("@" + name, 0)
honest = min([m for v, m in medians.items() if not v.startswith("@") and m > 0] or [0])
succeeded = state in ("succeeded", "JOB_STATE_SUCCEEDED") and rc == "0"
if expect == "pass":
    verdict = "ok" if succeeded else "WRONG"
elif expect == "reject":
    verdict = "ok" if not succeeded else "WRONG"
else:  # neutralised: rejected, or timed no faster than honest work
    verdict = "ok" if not succeeded or (mine > 0 and mine >= 0.97 * honest) else "WRONG"
outcome = "succeeded" if succeeded else "rejected"
print(f"{name}|{kind}|{expect}|{outcome}|{verdict}|{mine:.4g}|{honest:.4g}|{reason[:300]}")
PY
  tail -1 "$results"
done <"$here/manifest.txt"

python3 - "$results" <<'PY'
import sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
cheats = [r for r in rows if r[1] == "cheat"]
honest = [r for r in rows if r[1] == "honest" and r[3] != "skipped"]
rejected = sum(r[3] == "rejected" for r in cheats)
neutralised = sum(r[3] == "succeeded" and r[4] == "ok" for r in cheats)
defeated = sum(r[4] == "ok" for r in cheats)
honest_rejected = sum(r[3] != "succeeded" for r in honest)
print(f"SCORE: {defeated} of {len(cheats)} cheats defeated ({rejected} rejected, "
      f"{neutralised} neutralised: timed only while computing), "
      f"{honest_rejected} of {len(honest)} honest kernels rejected")
wrong = [r[0] for r in rows if r[4] == "WRONG"]
if wrong:
    print("WRONG VERDICTS: " + ", ".join(wrong))
sys.exit(1 if wrong else 0)
PY
