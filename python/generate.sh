#!/usr/bin/env bash
# Generates the Python stubs of the kbench.v1 API (proto/kbench/v1/*.proto) into
# python/kbench/v1/, where protoc's own imports ("from kbench.v1 import types_pb2") find them
# inside the kbench package. The stubs are committed so that `pip install ./python` needs no
# protoc; `generate.sh --check` regenerates them into a scratch folder and fails when they
# differ from the committed ones (a CTest test runs it, so they never drift from the protos).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
proto_root="$here/../proto"
plugin="${GRPC_PYTHON_PLUGIN:-$(command -v grpc_python_plugin || true)}"
if [[ -z "$plugin" ]]; then
  echo "generate.sh: grpc_python_plugin not found (Debian: protobuf-compiler-grpc)" >&2
  exit 2
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
protos=("$proto_root"/kbench/v1/*.proto)
protoc -I "$proto_root" --python_out="$out" --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python="$plugin" "${protos[@]}"
# Only the service has RPCs; the plugin writes an empty *_pb2_grpc.py for every other file.
find "$out/kbench/v1" -name '*_pb2_grpc.py' ! -name 'service_pb2_grpc.py' -delete
target="$here/kbench/v1"
if [[ "${1:-}" == "--check" ]]; then
  if ! diff -r -x __init__.py -x __pycache__ "$out/kbench/v1" "$target" >/dev/null; then
    echo "generate.sh: python/kbench/v1 differs from proto/kbench/v1/*.proto;" \
      "run python/generate.sh and commit the result" >&2
    diff -r -q -x __init__.py -x __pycache__ "$out/kbench/v1" "$target" >&2 || true
    exit 1
  fi
  echo "generate.sh: python/kbench/v1 matches the protos"
  exit 0
fi
find "$target" -name '*_pb2*.py' -delete
cp "$out"/kbench/v1/*.py "$target/"
echo "generate.sh: wrote $(ls "$out"/kbench/v1/*.py | wc -l) files to $target"
