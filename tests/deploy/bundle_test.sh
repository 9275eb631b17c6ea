#!/usr/bin/env bash
# Builds the relocatable bundle from the built kbenchd, kbench-executor and kbctl, unpacks it somewhere else, and
# checks it: RUNPATHs, no host-provided library inside, every other library resolved from the
# bundle's lib/, and the unpacked kbenchd serving a cpu job to the unpacked kbctl.
# usage: bundle_test.sh MAKE_BUNDLE KBENCHD KBENCH_EXECUTOR KBCTL VERSION DEPLOY_DIR
set -euo pipefail
make_bundle="$1" kbenchd="$2" executor="$3" kbctl="$4" version="$5" deploy_dir="$6"

fail() { echo "FAIL: $*" >&2; exit 1; }
work="$(realpath "$(mktemp -d)")"
daemon_pid=""
cleanup() {
  if [[ -n "$daemon_pid" ]] && kill -0 "$daemon_pid" 2>/dev/null; then kill -KILL "$daemon_pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT

tarball="$("$make_bundle" --output "$work/dist" --version "$version" --deploy-dir "$deploy_dir" \
  "$kbenchd" "$executor" "$kbctl" | tail -1)"
[[ "$(basename "$tarball")" == "kbench-${version}-linux-$(uname -m).tar.gz" ]] \
  || fail "unexpected tarball name $tarball"
mkdir -p "$work/unpack" "$work/elsewhere"
tar -xzf "$tarball" -C "$work/unpack"
# Relocate: the bundle must not remember where it was unpacked.
mv "$work/unpack/kbench-${version}-linux-$(uname -m)" "$work/elsewhere/kb"
root="$work/elsewhere/kb"

for b in kbenchd kbench-executor kbctl; do
  [[ -x "$root/bin/$b" ]] || fail "bin/$b missing"
  runpath="$(readelf -d "$root/bin/$b" | sed -n 's/.*Library runpath: \[\(.*\)\]/\1/p')"
  [[ "$runpath" == '$ORIGIN/../lib'* ]] || fail "bin/$b RUNPATH is '$runpath', not \$ORIGIN/../lib first"
done
for lib in "$root"/lib/*; do
  name="$(basename "$lib")"
  case "$name" in
    libc.so*|libm.so*|ld-linux*|libpthread*|libcuda.so*|libnvidia-*|libcublas*|libcupti*|libnvrtc*|libnvJitLink*)
      fail "lib/$name is provided by the host and must not be bundled" ;;
  esac
  runpath="$(readelf -d "$lib" | sed -n 's/.*Library runpath: \[\(.*\)\]/\1/p')"
  [[ "$runpath" == '$ORIGIN' ]] || fail "lib/$name RUNPATH is '$runpath', not \$ORIGIN"
done
ls "$root/lib" | grep -q '^libstdc++' || fail "libstdc++ not bundled"
ls "$root/lib" | grep -q '^libgrpc++' || fail "libgrpc++ not bundled"
for f in systemd/kbenchd.service grafana/kbench-dashboard.json prometheus/alerts.yml; do
  [[ -f "$root/share/kbench/$f" ]] || fail "share/kbench/$f missing"
done
[[ -f "$root/MANIFEST" ]] || fail "MANIFEST missing"

# Every library that is not the host's resolves into the unpacked lib/.
for b in kbenchd kbench-executor kbctl; do
  while read -r soname arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    case "$soname" in
      libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|libresolv*|libcrypt.so*|libutil.so*) continue ;;
      libcuda.so*|libnvidia-*|libcublas*|libcupti*|libnvrtc*|libnvJitLink*|libnvperf*|libnvToolsExt*) continue ;;
    esac
    [[ "$path" != "not" ]] || fail "bin/$b: $soname not found"
    [[ "$(realpath -m "$path")" == "$root/lib/"* ]] || fail "bin/$b: $soname resolves to $path, outside the bundle"
  done < <(env -u LD_LIBRARY_PATH ldd "$root/bin/$b")
done

# The unpacked programs work: kbenchd serves, kbctl runs a cpu benchmark through it.
"$root/bin/kbctl" --help >/dev/null || fail "bundled kbctl --help failed"
env -u LD_LIBRARY_PATH "$root/bin/kbenchd" --open --listen 127.0.0.1:0 --data-dir "$work/data" \
  --metrics-listen 127.0.0.1:0 >"$work/kbenchd.out" 2>"$work/kbenchd.err" &
daemon_pid=$!
deadline=$((SECONDS + 60))
until grep -qx 'kbenchd: ready' "$work/kbenchd.out" 2>/dev/null; do
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/kbenchd.err" >&2; fail "bundled kbenchd exited before ready"; }
  ((SECONDS < deadline)) || { cat "$work/kbenchd.err" >&2; fail "bundled kbenchd not ready in 60 s"; }
  sleep 0.1
done
address="$(sed -n 's/^kbenchd: listening on //p' "$work/kbenchd.out")"
metrics="$(sed -n 's/^kbenchd: metrics on //p' "$work/kbenchd.out")"
timeout 120 env -u LD_LIBRARY_PATH "$root/bin/kbctl" --server "$address" bench square \
  --variant host_loop --shape 256x256 --device cpu >"$work/kbctl.out" 2>&1 \
  || { cat "$work/kbctl.out" "$work/kbenchd.err" >&2; fail "bundled kbctl bench failed"; }

# The job shows on /metrics (bash's /dev/tcp: no HTTP client needed).
exec 3<>"/dev/tcp/${metrics%:*}/${metrics##*:}"
printf 'GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n' "$metrics" >&3
scrape="$(timeout 10 cat <&3)"
exec 3<&-
grep -q '^kbench_jobs_submitted_total{.*device="cpu".*} 1' <<<"$scrape" \
  || { echo "$scrape" >&2; fail "job not counted on /metrics"; }

kill -TERM "$daemon_pid"
deadline=$((SECONDS + 30))
while kill -0 "$daemon_pid" 2>/dev/null; do
  ((SECONDS < deadline)) || fail "bundled kbenchd did not exit within 30 s of SIGTERM"
  sleep 0.1
done
wait "$daemon_pid" || fail "bundled kbenchd exited with status $? on SIGTERM"
daemon_pid=""
echo "bundle OK: $(basename "$tarball"), $(ls "$root/lib" | wc -l) libraries, $(du -sh "$tarball" | cut -f1)"
