#!/usr/bin/env bash
# On the GPU host: the executor split end to end. Starts the packed kbenchd (which must find
# kbench-executor next to it and bring up cuda:0), runs a CUDA benchmark, a compare and a profile
# through kbctl, and records the resident memory of kbenchd and of each executor when idle.
# usage: check_split.sh PACK_DIR OUT_DIR
set -uo pipefail
pack=$(cd "$1" && pwd); out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
source "$(dirname "${BASH_SOURCE[0]}")/start_kbenchd.sh"
start_kbenchd "$pack" "$out" --metrics-listen 127.0.0.1:0
pid=$kbenchd_pid
rss() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }
echo "ldd kbenchd (CUDA libraries, none expected):"; ldd "$pack/bin/kbenchd" | grep -iE 'cuda|cublas|cupti|nvrtc' || echo "  none"
sleep 2
echo "idle RSS kbenchd pid $pid: $(rss $pid) kB"
for c in $(pgrep -P $pid); do echo "idle RSS $(tr '\0' ' ' </proc/$c/cmdline | cut -c1-80): $(rss $c) kB"; done
"$pack/bin/kbctl" devices
"$pack/bin/kbctl" bench softmax --variant fused --shape 4096x4096 --dtype f32 --device cuda:0; echo "bench rc=$?"
"$pack/bin/kbctl" compare softmax --variants naive,fused,online --shape 8192x1024 --device cuda:0; echo "compare rc=$?"
"$pack/bin/kbctl" profile softmax --variants naive,fused --shape 4096x4096 --device cuda:0 -f "$out/trace.json"; echo "profile rc=$?"
echo "after jobs: RSS kbenchd $(rss $pid) kB"
for c in $(pgrep -P $pid); do echo "after jobs: RSS $(tr '\0' ' ' </proc/$c/cmdline | cut -c1-80): $(rss $c) kB"; done
