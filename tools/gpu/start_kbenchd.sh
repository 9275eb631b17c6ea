# Sourced by the GPU proof scripts: starts the packed kbenchd (--open, a fresh data directory, a
# loopback port) with any extra flags, waits for it to be ready, exports KBENCH_SERVER, and stops
# it when the script exits; sets kbenchd_pid and kbenchd_data. Its stdout and log go to OUT/kbenchd.stdout and OUT/kbenchd.log.
# usage: source tools/gpu/start_kbenchd.sh; start_kbenchd PACK_DIR OUT_DIR [KBENCHD_FLAGS...]
start_kbenchd() {
  local pack=$1 out=$2
  shift 2
  kbenchd_data=$(mktemp -d)
  "$pack/bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$kbenchd_data" "$@" \
    >"$out/kbenchd.stdout" 2>"$out/kbenchd.log" &
  kbenchd_pid=$!
  trap 'kill $kbenchd_pid 2>/dev/null; wait $kbenchd_pid 2>/dev/null || true' EXIT
  for _ in $(seq 1 900); do
    grep -q '^kbenchd: ready' "$out/kbenchd.stdout" 2>/dev/null && break
    kill -0 "$kbenchd_pid" || { tail -20 "$out/kbenchd.log"; exit 1; }
    sleep 0.1
  done
  KBENCH_SERVER=$(sed -n 's/^kbenchd: listening on //p' "$out/kbenchd.stdout")
  export KBENCH_SERVER
}
