# Sourced by the GPU proof scripts after `set -uo pipefail`, with PACK_DIR OUT_DIR as "$@": the
# packed build folder (tools/gpu/pack_all.sh, unpacked: bin/ and lib/) and the output folder.
# Sets pack, out (absolute), here (tools/gpu), kbctl, status=0; puts the pack's libraries and
# CUDA's on the library path, keeps NVLink multicast off (NCCL_NVLS_ENABLE=0, as kbench's
# executor has it); step() prints a heading with the time.
if [[ $# -ne 2 ]]; then
  echo "usage: $0 PACK_DIR OUT_DIR" >&2
  exit 2
fi
pack=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NCCL_NVLS_ENABLE=0
kbctl="$pack/bin/kbctl"
status=0
step() { echo "== $* ($(date -u +%H:%M:%S))"; }
