#!/usr/bin/env bash
# Soak and per-job overhead: N tiny cpu jobs (square 64x64, >= 3 samples, >= 1 ms measured)
# queued in a fresh data directory, then drained by one kbenchd; prints the drain rate, the
# per-job time, and kbenchd's resident memory before and after. Not part of CI (minutes).
#
#   tools/soak/drain.sh [N=10000] [BIN_DIR=build/nocuda/bin]
#
# The jobs are queued while no daemon runs (rows copied from one job submitted through kbctl,
# which is what a submit writes), so the drain is measured alone: from the daemon's first
# start to the last job's end, read from the store's own timestamps.
set -euo pipefail

N=${1:-10000}
BIN=${2:-build/nocuda/bin}
DATA=$(mktemp -d /tmp/kbench-soak.XXXXXX)
trap 'kill "${PID:-}" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$DATA"' EXIT
SPEC=(bench square --variant host_loop --shape 64x64 --device cpu --min-samples 3
      --min-time 0.001 --max-noise 0.99)

start_daemon() {
  "$BIN/kbenchd" --open --no-cuda --listen 127.0.0.1:0 --data-dir "$DATA" --log-level warn \
    >"$DATA/out.log" 2>>"$DATA/err.log" &
  PID=$!
  for _ in $(seq 100); do grep -q ready "$DATA/out.log" 2>/dev/null && break; sleep 0.1; done
  PORT=$(grep -o 'listening on [0-9.:]*' "$DATA/out.log" | sed 's/.*://')
}
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }
# CPU time (ms, user + system) of kbenchd and its live children (the executor): what a job
# costs whatever else the machine runs, where the drain's wall time depends on the load.
cpu_ms() {
  local total=0 p
  for p in "$PID" $(cat /proc/"$PID"/task/*/children 2>/dev/null); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo $((total * 1000 / $(getconf CLK_TCK)))
}
sql() { sqlite3 "$DATA/kbench.db" "$1"; }

# 1. One job through the API: its row is the template of the others.
start_daemon
"$BIN/kbctl" --server "127.0.0.1:$PORT" "${SPEC[@]}" >/dev/null
kill "$PID"; wait "$PID" || true
TEMPLATE=$(sql "SELECT id FROM jobs LIMIT 1")

# 2. N queued copies, as N submits would have written them.
sql "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
     INSERT INTO jobs (id, state, device, kernel, kind, priority, create_time_ns, spec)
     SELECT printf('soak-%06d', i), 'queued', device, kernel, kind, priority,
            create_time_ns, spec FROM n, jobs WHERE jobs.id = '$TEMPLATE'"

# 3. Drain.
start_daemon
RSS_BEFORE=$(rss_kib)
CPU_BEFORE=$(cpu_ms)
while [ "$(sql "SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'running')")" != 0 ]; do
  sleep 1
done
RSS_AFTER=$(rss_kib)
CPU_AFTER=$(cpu_ms)
read -r DONE FAILED SPAN_MS SAMPLING_MS <<<"$(sql "SELECT COUNT(*), SUM(state != 'succeeded'),
  (MAX(finish_time_ns) - MIN(start_time_ns)) / 1e6, 0 FROM jobs WHERE id LIKE 'soak-%'" |
  tr '|' ' ')"
kill "$PID"; wait "$PID" || true
awk -v n="$DONE" -v f="$FAILED" -v ms="$SPAN_MS" -v a="$RSS_BEFORE" -v b="$RSS_AFTER" \
    -v cpu=$((CPU_AFTER - CPU_BEFORE)) -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
  printf "jobs %d (not succeeded: %d)\ndrain %.1f s: %.1f jobs/s, %.2f ms per job\n", n, f,
    ms / 1000, n / (ms / 1000), ms / n
  printf "CPU (kbenchd + executor) %.2f ms per job; load average %s at the end\n", cpu / n, load
  printf "kbenchd RSS %d KiB at start, %d KiB after the drain (%+d KiB)\n", a, b, b - a }'
