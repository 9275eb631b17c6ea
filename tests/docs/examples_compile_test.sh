#!/usr/bin/env bash
# The examples the docs run (examples/) exist and compile through a real kbenchd: each user
# kernel as `kbctl compile` sends it (NVRTC in the executor's sandbox, no GPU needed), with the
# entry and launch configuration docs/user_kernels.md gives it.
# usage: examples_compile_test.sh BIN_DIR SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
work=$(mktemp -d)
daemon_pid=
cleanup() {
  [[ -n $daemon_pid ]] && { kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Every example file the docs name is in the tree.
for doc in "$src/README.md" "$src"/docs/*.md; do
  for f in $(grep -oP '(?<![/A-Za-z0-9_.-])examples/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$doc" | sort -u); do
    [[ -e $src/$f ]] || fail "$(basename "$doc") names $f, which is not in the tree"
  done
done

"$bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$work/data" --log-level warn \
  >"$work/out" 2>"$work/err" &
daemon_pid=$!
deadline=$((SECONDS + 60))
until grep -qx 'kbenchd: ready' "$work/out" 2>/dev/null; do
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/err" >&2; fail "kbenchd exited before ready"; }
  ((SECONDS < deadline)) || { cat "$work/err" >&2; fail "kbenchd not ready in 60 s"; }
  sleep 0.1
done
export KBENCH_SERVER=$(sed -n 's/^kbenchd: listening on //p' "$work/out")

timeout 180 "$bin/kbctl" -o json compile softmax --source "$src/examples/my_softmax.cu" \
  --entry softmax_kernel --grid rows --block 256 --arch sm_90a >"$work/compile.json" 2>&1 ||
  { cat "$work/compile.json" "$work/err" >&2; fail "kbctl compile of examples/my_softmax.cu failed"; }
grep -q '"JOB_STATE_SUCCEEDED"' "$work/compile.json" ||
  { cat "$work/compile.json" >&2; fail "the compile job of examples/my_softmax.cu did not succeed"; }
grep -q '"softmax_kernel"' "$work/compile.json" ||
  { cat "$work/compile.json" >&2; fail "the compile report does not name softmax_kernel"; }
echo "PASS: examples/my_softmax.cu compiles for sm_90a through kbenchd"
