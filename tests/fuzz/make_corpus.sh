#!/usr/bin/env bash
# Regenerates the seed corpus (corpus/<target>/): valid inputs from protoc's text encoder plus the
# malformed cases each parser must refuse. Run from anywhere; needs protoc. The corpus is
# checked in; libFuzzer grows its own copy in a temporary directory (scripts/fuzz.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
proto=$here/../../proto
out=$here/corpus
rm -rf "$out" && mkdir -p "$out"/{wire,page_token,submit_validation}

encode() { protoc -I "$proto" --encode="$1" "$2"; }
# A wire frame: 4-byte little-endian length, then the bytes.
frame() { local n; n=$(wc -c <"$1"); printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' \
  $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255)))"; cat "$1"; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
exec_proto=kbench/internal/v1/executor.proto
echo 'ready { id: "cpu" kind: DEVICE_KIND_CPU name: "host" }' |
  encode kbench.internal.v1.ExecutorMessage $exec_proto >"$tmp/ready"
echo 'progress { job_id: "j-1" progress { variant: "v" } }' |
  encode kbench.internal.v1.ExecutorMessage $exec_proto >"$tmp/progress"
echo 'outcome { job_id: "j-1" code: 3 message: "bad" artifacts { name: "a" path: "/x" } }' |
  encode kbench.internal.v1.ExecutorMessage $exec_proto >"$tmp/outcome"
frame "$tmp/ready" >"$out/wire/ready"
{ frame "$tmp/progress"; frame "$tmp/outcome"; } >"$out/wire/progress_then_outcome"
frame "$tmp/outcome" | head -c 9 >"$out/wire/truncated_message"
printf '\x02\x00' >"$out/wire/truncated_prefix"
printf '\xff\xff\xff\xff' >"$out/wire/huge_length"
printf '\x00\x00\x00\x00' >"$out/wire/empty_message"
printf '\x03\x00\x00\x00\xff\xff\xff' >"$out/wire/garbage_message"

b64() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_'; }
b64 'kbench-page-v1:42' >"$out/page_token/valid"
b64 'kbench-page-v1:9223372036854775807' >"$out/page_token/max_seq"
b64 'kbench-page-v1:0' >"$out/page_token/zero_seq"
b64 'kbench-page-v1:-5' >"$out/page_token/negative_seq"
b64 'kbench-page-v2:42' >"$out/page_token/other_version"
printf 'not base64 at all!' >"$out/page_token/garbage"

spec() { echo "$2" | encode kbench.v1.JobSpec kbench/v1/types.proto >"$out/submit_validation/$1"; }
spec minimal 'kernel: "square" variants: "host_loop"'
spec shaped 'kernel: "square" variants: "host_loop" shape: 64 shape: 64 dtype: DTYPE_F32'
spec compare 'kind: JOB_KIND_BENCHMARK kernel: "square" variants: "naive_2d" variants: "vectorized"'
spec stopping 'kernel: "softmax" variants: "host_loop" stopping { max_noise: 0.01 min_samples: 3 min_time_seconds: 0.001 timeout_seconds: 1 }'
spec params 'kernel: "mlp" variants: "host_loop" params { key: "layers" value: 4 }'
spec profile 'kind: JOB_KIND_PROFILE kernel: "matmul" variants: "cublas" profile { iterations: 3 }'
spec huge_shape 'kernel: "square" variants: "host_loop" shape: 9223372036854775807 shape: 2'
spec negative_shape 'kernel: "add" variants: "host_loop" shape: -1'
spec unknown_kernel 'kernel: "nope" variants: "x"'
echo "corpus written to $out"
