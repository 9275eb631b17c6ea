#!/usr/bin/env bash
# Packs what tools/gpu/fleet_gpu.sh needs on a GPU host that has no PostgreSQL: kbenchd,
# kbench-executor and kbctl with their libraries (tools/bench/pack.sh), and this machine's
# PostgreSQL server (Debian's package) laid out as its own prefix, so that it finds its share
# and lib directories relative to its binaries, with its libraries apart from kbench's.
# usage: pack_fleet.sh BUILD_DIR OUT_FILE   (default build/release .carry/fleet.tar.xz)
set -euo pipefail
build=${1:-build/release}
out=${2:-.carry/fleet.tar.xz}
pg_bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
pg_version=$(basename "$(dirname "$pg_bin")")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tools/bench/pack.sh "$build" "$stage/p" >/dev/null
prefix=$stage/p/pg
mkdir -p "$prefix/usr/lib/postgresql/$pg_version/lib" "$prefix/usr/share/postgresql" \
  "$prefix/zoneinfo" "$stage/p/pglib"
cp -a "$pg_bin" "$prefix/usr/lib/postgresql/$pg_version/"
# Server modules, without the JIT (LLVM alone is larger than everything else together).
find "/usr/lib/postgresql/$pg_version/lib" -maxdepth 1 -name '*.so' ! -name 'llvmjit*' \
  -exec cp {} "$prefix/usr/lib/postgresql/$pg_version/lib/" \;
cp -a "/usr/share/postgresql/$pg_version" "$prefix/usr/share/postgresql/"
# Debian's server reads time zones from the system's tzdata, which a GPU host may lack.
cp -a /usr/share/zoneinfo/UTC /usr/share/zoneinfo/GMT /usr/share/zoneinfo/Etc "$prefix/zoneinfo/"
ldd "$prefix/usr/lib/postgresql/$pg_version/bin/"{postgres,initdb,pg_ctl} \
  "$prefix/usr/lib/postgresql/$pg_version/lib/"{plpgsql,dict_snowball}.so |
  awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libgcc_s|libstdc\+\+|libresolv)\.so' |
  while read -r lib; do cp -nL "$lib" "$stage/p/pglib/"; done
echo "$pg_version" >"$prefix/VERSION"
cp tools/gpu/fleet_gpu.sh "$stage/p/"
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cJf "$out" p
ls -la "$out"
