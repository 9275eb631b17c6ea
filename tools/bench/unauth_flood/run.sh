#!/usr/bin/env bash
# kbenchd's memory under a flood (issue 24, item 4): starts a fresh kbenchd with an auth file
# (cpu device only, temporary data directory), lets it settle, then runs kbench-unauth-flood
# with CALLERS concurrent requests of REQUEST_BYTES each and a bad token (or a good one with
# --good-token), and prints its lines. Record the numbers with the date and commit.
#
#   tools/bench/unauth_flood/run.sh [BIN_DIR] [METHOD] [CALLERS] [REQUEST_BYTES] [--good-token]
#   BIN_DIR: where kbenchd and kbench-executor are (build/release/bin); kbench-unauth-flood is
#   looked for there, then in FLOOD_BIN_DIR (to measure another build's kbenchd).
#   KBENCHD_FLAGS: more flags for kbenchd (e.g. "--max-rpc-threads 8").
#   TLS=1: kbenchd serves TLS (a throw-away CA and certificate for 127.0.0.1).
set -euo pipefail

bin=${1:-build/release/bin}
method=${2:-SubmitJob}
callers=${3:-32}
request_bytes=${4:-$((35 << 20))}
good_token=${5:-}
flood=${FLOOD_BIN_DIR:-$bin}/kbench-unauth-flood
[[ -x $bin/kbenchd ]] || { echo "run.sh: no $bin/kbenchd; build it first" >&2; exit 1; }
[[ -x $flood ]] || { echo "run.sh: no $flood; build it first" >&2; exit 1; }
work=$(mktemp -d)
daemon_pid=
cleanup() {
  if [[ -n $daemon_pid ]]; then
    kill "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

tls_daemon=()
tls_client=()
if [[ ${TLS:-} == 1 ]]; then
  source "$(dirname "$0")/../throwaway_tls.sh"
  throwaway_tls "$work"
  tls_daemon=(--tls-cert "$work/server.pem" --tls-key "$work/server.key")
  tls_client=(--ca-file "$work/ca.pem")
fi
token=$("$bin/kbenchd" token add flood --auth-file "$work/users.yaml" 2>/dev/null)
[[ $good_token == --good-token ]] || token="not-a-valid-token"
"$bin/kbenchd" --no-cuda --listen 127.0.0.1:0 --data-dir "$work/data" --log-level warn \
  --auth-file "$work/users.yaml" "${tls_daemon[@]}" ${KBENCHD_FLAGS:-} >"$work/out" 2>"$work/err" &
daemon_pid=$!
for _ in $(seq 600); do
  grep -q '^kbenchd: ready' "$work/out" 2>/dev/null && break
  sleep 0.1
done
address=$(sed -n 's/^kbenchd: listening on //p' "$work/out")
[[ -n $address ]] || { echo "run.sh: kbenchd did not start:" >&2; cat "$work/err" >&2; exit 1; }
sleep 2  # past start-up's allocations, so that VmRSS before the flood is the idle daemon's

echo "# kbench-unauth-flood $method x $callers, $(date -u +%FT%TZ), $(nproc) cores," \
  "token: ${good_token:-bad}, tls: ${TLS:-0}"
"$flood" --target "$address" --pid "$daemon_pid" --method "$method" --callers "$callers" \
  --request-bytes "$request_bytes" --token "$token" "${tls_client[@]}"
