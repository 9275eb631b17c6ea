#!/usr/bin/env bash
# Packs kbenchd, kbench-executor and kbctl with the non-system shared libraries they need into a relocatable
# tarball (bin/, lib/ with RUNPATH $ORIGIN/../lib, share/kbench/) that runs on a GPU host with
# the NVIDIA driver and the CUDA 13 runtime libraries but none of the -dev packages.
#
# usage: make_bundle.sh --output DIR --version VERSION [--deploy-dir DIR] [--keep-debug] BIN...
# writes DIR/kbench-VERSION-linux-ARCH.tar.gz and prints its path.
set -euo pipefail

die() { echo "make_bundle.sh: $*" >&2; exit 1; }

output=""
version=""
deploy_dir=""
keep_debug=0
bins=()
while (($#)); do
  case "$1" in
    --output) output="${2:?--output needs a directory}"; shift 2 ;;
    --version) version="${2:?--version needs a value}"; shift 2 ;;
    --deploy-dir) deploy_dir="${2:?--deploy-dir needs a directory}"; shift 2 ;;
    --keep-debug) keep_debug=1; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) bins+=("$1"); shift ;;
  esac
done
[[ -n "$output" ]] || die "--output is required"
[[ -n "$version" ]] || die "--version is required"
((${#bins[@]})) || die "no executables given"
for tool in ldd patchelf tar readelf; do
  command -v "$tool" >/dev/null || die "$tool not found (Debian: apt-get install patchelf binutils tar libc-bin)"
done
for b in "${bins[@]}"; do
  [[ -f "$b" && -x "$b" ]] || die "executable not found: $b"
done

arch="$(uname -m)"
name="kbench-${version}-linux-${arch}"

# Libraries the target host provides and the bundle must not carry:
# - glibc's own (the loader must match the libc it loads; the host's is used);
# - the NVIDIA driver's (libcuda, libnvidia-*: tied to the kernel module's version);
# - the CUDA 13 runtime libraries (cuBLAS, CUPTI, NVRTC, ...), licensed and versioned by
#   NVIDIA and installed on a GPU host with the driver or in nvidia/cuda images.
# libstdc++ and libgcc_s are bundled: a host may have older ones than the build's.
host_provided() {
  case "$1" in
    linux-vdso.so.*|ld-linux*.so.*|libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*) return 0 ;;
    libresolv.so.*|libutil.so.*|libnsl.so.*|libanl.so.*|libmvec.so.*|libBrokenLocale.so.*) return 0 ;;
    libnss_*|libthread_db.so.*|libcrypt.so.*) return 0 ;;
    libcuda.so*|libnvidia-*|libnvcuvid.so*|libnvoptix.so*) return 0 ;;
    libcublas*|libcublasLt*|libcupti*|libnvrtc*|libnvperf*|libnvToolsExt*|libnvJitLink*) return 0 ;;
    libcudart*|libcufft*|libcurand*|libcusolver*|libcusparse*|libnpp*|libnvjpeg*|libcufile*) return 0 ;;
  esac
  return 1
}

stage="$(realpath "$(mktemp -d)")"
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/bin" "$root/lib" "$root/share/kbench"

# "libfoo.so.1 => /path/libfoo.so.1 (0x...)" for every library in the closure; "not found"
# fails unless the host provides it (a GPU host's CUDA libraries need not be on the build host's
# loader path).
declare -A bundled=()
declare -A provided=()
for b in "${bins[@]}"; do
  while read -r soname arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    if host_provided "$soname"; then
      provided["$soname"]=1
      continue
    fi
    [[ "$path" != "not" ]] || die "$b needs $soname, which is not found on this build host"
    bundled["$soname"]="$path"
  done < <(ldd "$b")
done

for b in "${bins[@]}"; do
  cp "$b" "$root/bin/"
done
for soname in "${!bundled[@]}"; do
  # Copy the file the soname resolves to (dereferencing symlinks) under the soname itself.
  cp -L "${bundled[$soname]}" "$root/lib/$soname"
  chmod 0644 "$root/lib/$soname"
done

if ((!keep_debug)); then
  command -v strip >/dev/null || die "strip not found (apt-get install binutils); or pass --keep-debug"
  strip --strip-debug "$root"/bin/* "$root"/lib/* 2>/dev/null || true
fi

# Executables look in ../lib first, then where GPU hosts keep the CUDA runtime libraries when
# those are not on the loader's default path. Libraries find their siblings in their own dir.
cuda_paths="/usr/local/cuda/lib64:/usr/local/cuda/targets/${arch}-linux/lib:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib"
for f in "$root"/bin/*; do
  patchelf --set-rpath "\$ORIGIN/../lib:${cuda_paths}" "$f"
done
for f in "$root"/lib/*; do
  [[ -e "$f" ]] || continue
  patchelf --set-rpath '$ORIGIN' "$f"
done

if [[ -n "$deploy_dir" ]]; then
  for d in systemd prometheus grafana k8s docker; do
    [[ -d "$deploy_dir/$d" ]] && cp -r "$deploy_dir/$d" "$root/share/kbench/"
  done
  [[ -f "$deploy_dir/../docs/operations.md" ]] && cp "$deploy_dir/../docs/operations.md" "$root/share/kbench/"
fi

{
  echo "kbench ${version} (${arch}), built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")"
  echo "glibc on the build host: $(ldd --version | head -1)"
  echo
  echo "bundled in lib/:"
  for soname in $(printf '%s\n' "${!bundled[@]}" | sort); do echo "  $soname"; done
  echo
  echo "provided by the host (glibc, the NVIDIA driver, CUDA 13 runtime libraries):"
  for soname in $(printf '%s\n' "${!provided[@]}" | sort); do echo "  $soname"; done
} > "$root/MANIFEST"

# Self-check: from the staged tree, every library that is not the host's resolves into lib/.
for f in "$root"/bin/*; do
  while read -r soname arrow path _; do
    [[ "$arrow" == "=>" ]] || continue
    host_provided "$soname" && continue
    path="$(realpath -m "$path")"
    [[ "$path" == "$root/lib/"* ]] || die "$(basename "$f"): $soname resolves to $path, not into the bundle"
  done < <(env -u LD_LIBRARY_PATH ldd "$f")
done

mkdir -p "$output"
tarball="$(cd "$output" && pwd)/${name}.tar.gz"
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name -czf "$tarball" "$name"
echo "$tarball"
