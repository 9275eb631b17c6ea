#!/usr/bin/env bash
# Builds the Debian packages (kbench-client, kbench-server) with cpack from this build tree and
# checks them: names, dependencies, contents, and that the installed programs run. As root (CI),
# they are installed for real with apt-get (which resolves their Depends against Debian's
# archive), run, and removed; otherwise they are unpacked with dpkg -x and run from there.
# usage: deb_packages_test.sh BUILD_DIR VERSION
set -euo pipefail
build_dir="$1" version="$2"
fail() { echo "FAIL: $*" >&2; exit 1; }
work="$(realpath "$(mktemp -d)")"
installed=0 stand_in=0 made_etc=0 made_group=0
cleanup() {
  if ((installed)); then apt-get remove -y -qq kbench-client kbench-server >/dev/null 2>&1 || true; fi
  if ((stand_in)); then apt-get remove -y -qq kbench-test-cuda-runtime >/dev/null 2>&1 || true; fi
  if ((made_etc)); then rm -rf /etc/kbench; fi
  if ((made_group)); then groupdel kbench 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

(cd "$work" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1) \
  || { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
client="$(ls "$work"/out/kbench-client_"$version"_*.deb 2>/dev/null | head -1)"
server="$(ls "$work"/out/kbench-server_"$version"_*.deb 2>/dev/null | head -1)"
[[ -f "$client" ]] || { ls -R "$work/out" >&2; fail "no kbench-client_${version}_*.deb"; }
[[ -f "$server" ]] || { ls -R "$work/out" >&2; fail "no kbench-server_${version}_*.deb"; }

# Dependencies: dpkg-shlibdeps found the Debian libraries each program links.
client_depends="$(dpkg-deb -f "$client" Depends)"
server_depends="$(dpkg-deb -f "$server" Depends)"
for lib in libc6 libstdc++6 libgrpc++1.51 libprotobuf32; do
  grep -q "$lib" <<<"$client_depends" || fail "kbench-client Depends lacks $lib: $client_depends"
done
for lib in libc6 libgrpc++1.51 libsqlite3-0 libprometheus-cpp-pull1.0; do
  grep -q "$lib" <<<"$server_depends" || fail "kbench-server Depends lacks $lib: $server_depends"
done
grep -q "libsqlite3" <<<"$client_depends" && fail "kbench-client depends on SQLite: $client_depends"

# The CUDA build's kbench-executor links NVRTC, nvJitLink, CUPTI and cuBLAS: without them it does
# not start, so they are Depends (issue 28); the cpu-only build names none. The description says
# which build a package is.
cuda_packages=(cuda-nvrtc-13-0 libnvjitlink-13-0 cuda-cupti-13-0 libcublas-13-0)
server_description="$(dpkg-deb -f "$server" Description)"
if grep -q '^KBENCH_CUDA:BOOL=ON$' "$build_dir/CMakeCache.txt"; then
  cuda_build=1
  for p in "${cuda_packages[@]}"; do
    grep -qw -- "$p" <<<"$server_depends" || fail "the CUDA build's kbench-server Depends lacks $p: $server_depends"
  done
  grep -q '(CUDA 13 build)' <<<"$server_description" || fail "the description does not say CUDA build: $server_description"
else
  cuda_build=0
  for p in "${cuda_packages[@]}"; do
    grep -qw -- "$p" <<<"$server_depends" && fail "the cpu-only kbench-server depends on $p: $server_depends"
  done
  grep -q '(cpu-only build)' <<<"$server_description" || fail "the description does not say cpu-only: $server_description"
fi
dpkg-deb -I "$server" postinst >/dev/null 2>&1 || fail "kbench-server has no postinst (group kbench, auth file)"

# Contents: the client is kbctl alone; the server has both programs side by side and the unit.
# (Listings are read whole before grep: grep -q would close the pipe early under pipefail.)
client_files="$(dpkg-deb -c "$client")"
server_files="$(dpkg-deb -c "$server")"
grep -q '\./usr/bin/kbctl$' <<<"$client_files" || fail "kbench-client lacks /usr/bin/kbctl"
grep -q 'kbenchd' <<<"$client_files" && fail "kbench-client carries kbenchd"
# kbctl's manual and completions, generated from its command definitions (issue 28).
for f in usr/share/man/man1/kbctl.1.gz usr/share/bash-completion/completions/kbctl \
         usr/share/zsh/vendor-completions/_kbctl usr/share/fish/vendor_completions.d/kbctl.fish; do
  grep -q "\./$f\$" <<<"$client_files" || fail "kbench-client lacks /$f"
done
for f in usr/bin/kbenchd usr/bin/kbench-executor usr/lib/systemd/system/kbenchd.service \
         usr/share/kbench/grafana/kbench-dashboard.json usr/share/kbench/prometheus/alerts.yml; do
  grep -q "\./$f\$" <<<"$server_files" || fail "kbench-server lacks /$f"
done
unit="$(dpkg-deb --fsys-tarfile "$server" | tar -xO ./usr/lib/systemd/system/kbenchd.service)"
grep -q '^ExecStart=/usr/bin/kbenchd ' <<<"$unit" || fail "the packaged unit does not start /usr/bin/kbenchd"
grep -n '/opt/' <<<"$unit" && fail "the packaged unit names /opt paths"
units="$(grep -c 'kbenchd\.service$' <<<"$server_files" || true)"
[[ "$units" == 1 ]] || fail "kbench-server ships $units kbenchd.service files, not one"
printf '%s\n' "$unit" >"$work/packaged-kbenchd.service"
analyze="$(command -v systemd-analyze || echo systemd-analyze-not-found)"
rc=0; "$(dirname "$0")/systemd_unit_test.sh" "$analyze" "$work/packaged-kbenchd.service" || rc=$?
((rc == 0 || rc == 77)) || fail "the packaged unit does not verify"

# The programs run from the unpacked packages.
mkdir -p "$work/root"
dpkg -x "$client" "$work/root"
dpkg -x "$server" "$work/root"
"$work/root/usr/bin/kbctl" --version | grep -q "$version" || fail "unpacked kbctl --version"
# Captured first: grep -q stops reading at the match, and kbenchd's later writes would then die
# of SIGPIPE, which pipefail reports as a failure.
help="$("$work/root/usr/bin/kbenchd" --help)" || fail "unpacked kbenchd --help exits non-zero"
grep -q -- '--executor-path' <<<"$help" || fail "unpacked kbenchd --help"

if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
  installed=1
  [[ -e /etc/kbench ]] || made_etc=1
  getent group kbench >/dev/null || made_group=1
  extra=()
  # A host whose CUDA came from NVIDIA's runfile (CI's) has the libraries but not their packages:
  # a stand-in that provides them, as an operator's equivs package would (docs/operations.md).
  if ((cuda_build)) && ! apt-cache show "${cuda_packages[0]}" >/dev/null 2>&1; then
    mkdir -p "$work/stand-in/DEBIAN"
    printf '%s\n' "Package: kbench-test-cuda-runtime" "Version: 1.0" "Architecture: all" \
      "Maintainer: kbench tests <kbench@localhost>" \
      "Provides: $(IFS=,; echo "${cuda_packages[*]}" | sed 's/,/, /g')" \
      "Description: stands in for NVIDIA's CUDA 13 runtime packages in kbench's package test" \
      >"$work/stand-in/DEBIAN/control"
    dpkg-deb --build "$work/stand-in" "$work/kbench-test-cuda-runtime.deb" >/dev/null
    extra=("$work/kbench-test-cuda-runtime.deb")
    stand_in=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${extra[@]}" \
    "$client" "$server" >"$work/apt.log" 2>&1 \
    || { cat "$work/apt.log" >&2; fail "apt-get install of the packages failed"; }
  # The unit's dynamic user reads the auth file through the group kbench; nobody else does.
  getent group kbench >/dev/null || fail "the postinst made no group kbench"
  if ((made_etc)); then
    mode="$(stat -c '%a %U %G' /etc/kbench/users.yaml)"
    [[ "$mode" == "640 root kbench" ]] || fail "/etc/kbench/users.yaml is '$mode', not '640 root kbench'"
  fi
  /usr/bin/kbctl --version | grep -q "$version" || fail "installed kbctl --version"
  # (Minimal images exclude /usr/share/man from every package they install.)
  if command -v man >/dev/null && [[ -e /usr/share/man/man1/kbctl.1.gz ]]; then
    man -P cat kbctl 2>/dev/null | grep -q 'kbctl leaderboard' || fail "man kbctl lists no leaderboard"
  fi
  help="$(/usr/bin/kbenchd --help)" || fail "installed kbenchd --help exits non-zero"
  grep -q -- '--executor-path' <<<"$help" || fail "installed kbenchd --help"
  echo "installed with apt-get and ran: $(basename "$client") $(basename "$server")"
else
  echo "not root: unpacked and ran (no apt-get install)"
fi
echo "server Depends: $server_depends"
