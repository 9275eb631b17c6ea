#!/usr/bin/env bash
# A client-only configure (KBENCH_CLIENT_ONLY, the `client` preset; issue 28) asks for none of the
# server's dependencies: configured here with each of them made unfindable, it must succeed and
# generate kbctl, and no kbenchd, kbench-executor or test.
# usage: client_only_configure_test.sh SOURCE_DIR
set -euo pipefail
src="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "client_only_configure_test: $*" >&2; exit 1; }
disabled=()
for p in SQLite3 prometheus-cpp spdlog GTest PostgreSQL CUDAToolkit; do
  disabled+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON")
done
cmake -S "$src" -B "$work/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKBENCH_CLIENT_ONLY=ON \
  "${disabled[@]}" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; fail "the client-only configure failed without the server's packages"; }
targets=$(ninja -C "$work/b" -t targets all)
grep -q '^bin/kbctl:' <<<"$targets" || fail "no kbctl target"
for t in bin/kbenchd bin/kbench-executor tests/; do
  if grep -q "^$t" <<<"$targets"; then fail "a client-only build has $t"; fi
done
grep -q 'KBENCH_CUDA:BOOL=OFF' "$work/b/CMakeCache.txt" || fail "KBENCH_CUDA is not OFF"
echo "client_only_configure_test: configured kbctl alone without SQLite, prometheus-cpp, spdlog, GTest, PostgreSQL or CUDA"
