#!/usr/bin/env bash
# SubmitJob and GetJob latency on loopback in three configurations: open (plaintext, no token),
# a bearer token over plaintext, and a bearer token over TLS. Starts a fresh kbenchd (cpu device
# only, temporary data directory) for each, runs kbench-auth-latency against it, and prints its
# lines. Nothing is written to docs: record the numbers with the device, date and commit.
#
#   tools/bench/auth_latency/run.sh [BIN_DIR] [REQUESTS]
#   BIN_DIR: where kbenchd, kbench-executor and kbench-auth-latency are (build/nocuda/bin)
set -euo pipefail

bin=${1:-build/nocuda/bin}
requests=${2:-500}
for program in kbenchd kbench-executor kbench-auth-latency; do
  [[ -x $bin/$program ]] || { echo "run.sh: no $bin/$program; build it first" >&2; exit 1; }
done
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

# A CA and a server certificate for 127.0.0.1.
source "$(dirname "$0")/../throwaway_tls.sh"
throwaway_tls "$work"
token=$("$bin/kbenchd" token add bench --auth-file "$work/users.yaml" 2>/dev/null)

# Starts kbenchd with the given flags; sets $address from its "listening on" line.
start_daemon() {
  local data
  data=$(mktemp -d -p "$work")
  # Far above what the run submits: the quotas are not what is measured.
  "$bin/kbenchd" --no-cuda --listen 127.0.0.1:0 --data-dir "$data" --log-level warn \
    --max-queued-jobs 1000000 --default-max-queued-jobs 1000000 "$@" >"$data/out" 2>"$data/err" &
  daemon_pid=$!
  for _ in $(seq 600); do
    grep -q '^kbenchd: ready' "$data/out" 2>/dev/null && break
    sleep 0.1
  done
  address=$(sed -n 's/^kbenchd: listening on //p' "$data/out")
  [[ -n $address ]] || { echo "run.sh: kbenchd did not start:" >&2; cat "$data/err" >&2; exit 1; }
}
stop_daemon() { kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=; }

echo "# kbench-auth-latency, $requests calls per method, $(date -u +%FT%TZ), $(nproc) cores"
start_daemon --open
"$bin/kbench-auth-latency" --target "$address" --requests "$requests" --label open-plaintext
stop_daemon
start_daemon --auth-file "$work/users.yaml"
"$bin/kbench-auth-latency" --target "$address" --requests "$requests" --token "$token" \
  --label token-plaintext
stop_daemon
start_daemon --auth-file "$work/users.yaml" --tls-cert "$work/server.pem" \
  --tls-key "$work/server.key"
"$bin/kbench-auth-latency" --target "$address" --requests "$requests" --token "$token" \
  --ca "$work/ca.pem" --label token-tls
stop_daemon
