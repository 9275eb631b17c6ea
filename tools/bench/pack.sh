#!/usr/bin/env bash
# Packs kbenchd, kbench-executor, kbctl (stripped) and the non-system, non-CUDA shared libraries
# they need into
# a folder the device tool can carry: pack.sh BUILD_DIR DEST (default build/release .carry/kbench).
set -euo pipefail
build=${1:-build/release}
dest=${2:-.carry/kbench}
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
for program in kbenchd kbench-executor kbctl; do
  strip -o "$dest/bin/$program" "$build/bin/$program"
done
# glibc, libstdc++ and the CUDA libraries are on the GPU host; everything else travels.
ldd "$dest"/bin/* | awk '/=> \//{print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libutil|libgcc_s|libstdc\+\+|libz)\.so|/usr/local/cuda' |
  while read -r lib; do cp -L "$lib" "$dest/lib/"; done
cp tools/bench/*.py tools/bench/*.sh tools/bench/*.txt "$dest/"
du -sh "$dest"
