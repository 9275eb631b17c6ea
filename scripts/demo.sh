#!/usr/bin/env bash
# Installs, builds, starts kbenchd (cpu device, plus any GPU) on a loopback port and runs a
# sample benchmark with kbctl, printing the result. Stops the daemon afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
bin=build/release/bin
data="$(mktemp -d)"
"$bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$data" >"$data/stdout" 2>"$data/stderr" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 300); do
  grep -q '^kbenchd: ready' "$data/stdout" 2>/dev/null && break
  kill -0 $pid 2>/dev/null || { cat "$data/stderr" >&2; exit 1; }
  sleep 0.1
done
addr="$(sed -n 's/^kbenchd: listening on //p' "$data/stdout")"
export KBENCH_SERVER="$addr"
"$bin/kbctl" devices
"$bin/kbctl" bench softmax --variant host_rowwise --shape 1024x1024 --dtype f32 --device cpu
